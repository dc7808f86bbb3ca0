// `node -r ./scripts/register-ts.js bench/tools/lease-script-cost.ts`: what the coordination family's acquire and
// release cost Redis per call, beside the peer scripts users compare them with. Each script is loaded on one private
// redis-server and run by one caller, acquire then release, in rotating rounds of 5000 pairs; the server's own
// accounting (`INFO commandstats`: usec / calls of EVALSHA, and of ZREM for a release that is the command itself)
// gives µs of Redis CPU per call. Prints per script the median and p25–p75 of the rounds:
// bench/results/lease-script-cost.txt.
import { Redis } from 'ioredis';
import { SERVER_CLOCK_LUA } from '../../libs/redis-patterns/src/core/scripts/lua/server-clock.lua';
import { ACQUIRE_LEASE_SCRIPT } from '../../libs/redis-patterns/src/lease/scripts/acquire-lease.script';
import { NEXT_FENCE_LUA } from '../../libs/redis-patterns/src/lease/scripts/next-fence.lua';
import { RELEASE_LEASE_SCRIPT } from '../../libs/redis-patterns/src/lease/scripts/release-lease.script';
import { KEEP_ALIVE_LUA } from '../../libs/redis-patterns/src/lease/scripts/shared-lease.lua';
import { ACQUIRE_PERMIT_SCRIPT } from '../../libs/redis-patterns/src/semaphore/scripts/acquire-permit.script';
import { PrivateRedis } from '../lib/private-redis';
import { quantile } from '../lib/stats';

const PAIRS = 5000;
const ROUNDS = 8;
const TTL_MS = 30_000;

/** The permit acquisition as it was before `keep_alive_for`: the set's TTL read back from its latest score. */
const PERMIT_WITH_LATEST_SCORE = `${SERVER_CLOCK_LUA}${NEXT_FENCE_LUA}${KEEP_ALIVE_LUA}
local now = now_ms()
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {0, math.max(0, math.ceil(tonumber(first[2]) - now))}
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
keep_alive(KEYS[1], now)
return {1, next_fence(KEYS[2], ARGV[4])}`;

/** The script of the semaphore users pick instead (redis-semaphore's acquire; its release is a ZREM). */
const REDIS_SEMAPHORE_ACQUIRE = `local key = KEYS[1] local limit = tonumber(ARGV[1]) local identifier = ARGV[2]
local lockTimeout = tonumber(ARGV[3]) local now = tonumber(ARGV[4]) local expiredTimestamp = now - lockTimeout
redis.call('zremrangebyscore', key, '-inf', expiredTimestamp)
if redis.call('zcard', key) < limit then redis.call('zadd', key, now, identifier) redis.call('pexpire', key, lockTimeout) return 1 else return 0 end`;

/** A lock without a fencing token: SET NX PX (redlock's and @nestjs-redis/lock's acquisition). */
const SET_NX_ACQUIRE = `return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])`;

interface Case {
  readonly label: string;
  /** The acquire's Lua; the release is RELEASE_LEASE_SCRIPT (locks) or a ZREM (permits). */
  readonly acquire: string;
  readonly kind: 'lock' | 'permit';
  readonly args: (i: number) => Array<string | number>;
}

const CASES: Case[] = [
  { label: 'lock: acquire (fenced) + release, ours', acquire: ACQUIRE_LEASE_SCRIPT.single.lua, kind: 'lock', args: () => ['t', TTL_MS, 0] },
  { label: 'lock: SET NX PX + release (no fencing)', acquire: SET_NX_ACQUIRE, kind: 'lock', args: () => ['t', TTL_MS] },
  {
    label: 'permit: acquire + release, ours',
    acquire: ACQUIRE_PERMIT_SCRIPT.single.lua,
    kind: 'permit',
    args: (i) => [`t${i}`, TTL_MS, 16, 0],
  },
  {
    label: 'permit: acquire reading the latest score + release',
    acquire: PERMIT_WITH_LATEST_SCORE,
    kind: 'permit',
    args: (i) => [`t${i}`, TTL_MS, 16, 0],
  },
  {
    label: 'permit: redis-semaphore acquire + release',
    acquire: REDIS_SEMAPHORE_ACQUIRE,
    kind: 'permit',
    args: (i) => [16, `t${i}`, TTL_MS, Date.now()],
  },
];

async function main(): Promise<void> {
  const server = await PrivateRedis.start();
  const redis = new Redis({ port: server.port, host: '127.0.0.1' });
  try {
    const releaseSha = (await redis.script('LOAD', RELEASE_LEASE_SCRIPT.single.lua)) as string;
    const shas = await Promise.all(CASES.map((c) => redis.script('LOAD', c.acquire) as Promise<string>));
    const perCall: number[][] = CASES.map(() => []);
    for (let round = 0; round < ROUNDS; round++) {
      for (let k = 0; k < CASES.length; k++) {
        const index = (k + round) % CASES.length;
        const c = CASES[index];
        const keys =
          c.kind === 'lock'
            ? (i: number) => [`{lock${index}}:${i}`, `{lock${index}}:${i}:fence`]
            : () => [`{sem${index}}`, `{sem${index}}:fence`];
        const keyCount = c.acquire === REDIS_SEMAPHORE_ACQUIRE || c.acquire === SET_NX_ACQUIRE ? 1 : 2;
        await redis.config('RESETSTAT');
        for (let i = 0; i < PAIRS; i++) {
          const [key, fence] = keys(i);
          await redis.evalsha(shas[index], keyCount, ...(keyCount === 2 ? [key, fence] : [key]), ...c.args(i));
          if (c.kind === 'lock') await redis.evalsha(releaseSha, 1, key, 't');
          else await redis.zrem(key, String(c.args(i)[c.acquire === REDIS_SEMAPHORE_ACQUIRE ? 1 : 0]));
        }
        const stats = await redis.info('commandstats');
        let usec = 0;
        for (const command of ['evalsha', 'zrem']) {
          const match = stats.match(new RegExp(`cmdstat_${command}:calls=\\d+,usec=(\\d+)`));
          if (match) usec += Number(match[1]);
        }
        perCall[index].push(usec / PAIRS);
      }
    }
    for (let index = 0; index < CASES.length; index++) {
      const [p25, p50, p75] = [0.25, 0.5, 0.75].map((p) => quantile(perCall[index], p).toFixed(2));
      process.stdout.write(`${CASES[index].label}: ${p50} µs of Redis CPU per acquire + release (p25–p75 ${p25}–${p75})\n`);
    }
  } finally {
    redis.disconnect();
    await server.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
