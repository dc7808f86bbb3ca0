// `node -r ./scripts/register-ts.js bench/tools/tag-index.ts [--entries N] [--rate W] [--ttl-ms T] [--callers C]
// [--rounds R] [--slice-ms S] [--skip-growth] [--skip-writes] [--skip-script]`: what a long-lived cache tag costs, on a private redis-server, in one
// application context (CacheService through the public API only, so the same file runs on any version of the
// library and reports whichever tag layout it finds).
// - growth: one entry of tag `product:1` lives 10 min (the tag outlives everything else, as a product's tag does);
//   then N entries of the tag keyed by request, each living T ms, are written by C callers at W writes/s (the i-th
//   write starts no earlier than i/W s in), so most have expired by the end. Reports the tag's index key (TYPE, element count, MEMORY USAGE
//   SAMPLES 0) at the end of the writes (the steady state of a continuous stream) and once every short entry has
//   expired and one more entry of the tag was written; then how long `invalidateTags('product:1')` takes, what it
//   resolves with and how many tombstones (`…:inv` keys) it leaves.
// - writes: `set` with one tag (T ms TTL, a new key each call) from 1 and C callers, R slices of S ms each: ops/s of
//   each slice, and the server's CPU per `set` over the R slices (INFO deltas).
// - script: the tag registration script alone (the library's own text, sent as EVALSHA in pipelines of 1000, a new
//   member each call, TTL T ms, for R slices of S ms): the server's time per call from INFO commandstats, which
//   leaves out the I/O and the client's work that the `set` figures mix in.
import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import Redis from 'ioredis';
import { CacheService, RedisPatternsModule } from '../../libs/redis-patterns/src';
import { TAG_REGISTER_SCRIPT } from '../../libs/redis-patterns/src/cache/scripts/tag-register.script';
import { closedLoop } from '../lib/closed-loop';
import { PrivateRedis } from '../lib/private-redis';

const PREFIX = 'tagbench';
const TAG = 'product:1';

function flag(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Every key matching `pattern` (SCAN). */
async function scan(admin: Redis, pattern: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await admin.scan(cursor, 'MATCH', pattern, 'COUNT', 10_000);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== '0');
  return keys;
}

/** The tag's member index, whatever its suffix and type: every key of the tag but its epoch (`:e`). */
async function describeIndex(admin: Redis): Promise<string> {
  const keys = (await scan(admin, `${PREFIX}:cache-tag:*`)).filter((key) => !key.endsWith(':e'));
  if (keys.length === 0) return 'no index key';
  return (
    await Promise.all(
      keys.map(async (key) => {
        const type = await admin.type(key);
        const count = type === 'zset' ? await admin.zcard(key) : type === 'set' ? await admin.scard(key) : Number.NaN;
        const bytes = Number(await admin.call('MEMORY', 'USAGE', key, 'SAMPLES', '0'));
        return `${key} (${type}): ${count} members, MEMORY USAGE ${bytes} B (${(bytes / 1024 / 1024).toFixed(2)} MB)`;
      }),
    )
  ).join('; ');
}

async function growth(cache: CacheService, admin: Redis, entries: number, rate: number, ttlMs: number, callers: number): Promise<void> {
  await cache.set('anchor', 0, { ttlMs: 600_000, tags: [TAG] });
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: callers }, async () => {
      for (let i = next++; i < entries; i = next++) {
        const due = started + (i * 1000) / rate - performance.now();
        if (due > 0) await sleep(due);
        await cache.set(`req:${i}`, i, { ttlMs, tags: [TAG] });
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const live = (await scan(admin, `${PREFIX}:cache:*`)).filter((key) => key.endsWith('}')).length;
  process.stdout.write(
    `wrote ${entries} entries of ${TAG} (TTL ${ttlMs} ms) in ${seconds.toFixed(1)} s (${Math.round(entries / seconds)}/s); ${live} entries live at the end\n`,
  );
  process.stdout.write(`  index at the end of the writes: ${await describeIndex(admin)}\n`);
  // Every short entry expired, and its member's margin (1 s) passed too.
  await sleep(ttlMs + 1500);
  const latencies: number[] = [];
  const write = async (key: string) => {
    const t = performance.now();
    await cache.set(key, 0, { ttlMs: 600_000, tags: [TAG] });
    latencies.push(performance.now() - t);
  };
  await write('one-more');
  process.stdout.write(`  index once they expired, one write later (${latencies[0].toFixed(2)} ms): ${await describeIndex(admin)}\n`);
  // As many more writes as pruning 1000 members per write needs to catch up (and a few).
  const more = Math.ceil(entries / 1000) + 4;
  for (let k = 0; k < more; k++) await write(`more:${k}`);
  const sorted = latencies.slice(1).sort((a, b) => a - b);
  process.stdout.write(
    `  after ${more} more writes (their latency: median ${sorted[sorted.length >> 1].toFixed(2)} ms, max ${sorted[sorted.length - 1].toFixed(2)} ms): ${await describeIndex(admin)}\n`,
  );
  const t0 = performance.now();
  const deleted = await cache.invalidateTags(TAG);
  const ms = performance.now() - t0;
  const tombstones = (await scan(admin, `${PREFIX}:cache:*:inv`)).length;
  process.stdout.write(`  invalidateTags('${TAG}'): ${ms.toFixed(1)} ms, resolved ${deleted}, tombstones left ${tombstones}\n`);
  // For scale: one command removing as many members as the stream wrote (what pruning without a per-write bound
  // could cost one write after a lull).
  const scratch = `${PREFIX}:scratch`;
  for (let i = 0; i < entries; i += 10_000) {
    const args: Array<string | number> = [];
    for (let j = i; j < Math.min(entries, i + 10_000); j++) args.push(j, `${PREFIX}:cache:{req:${j}}`);
    await admin.zadd(scratch, ...args);
  }
  const t1 = performance.now();
  await admin.zremrangebyscore(scratch, '-inf', '+inf');
  process.stdout.write(`  for scale: ZREMRANGEBYSCORE of ${entries} members in one command: ${(performance.now() - t1).toFixed(1)} ms\n`);
}

async function writes(
  cache: CacheService,
  redis: PrivateRedis,
  ttlMs: number,
  callers: number,
  rounds: number,
  sliceMs: number,
): Promise<void> {
  let n = 0;
  for (const level of [1, callers]) {
    const rates: string[] = [];
    let ops = 0;
    const before = await redis.sample();
    for (let round = 0; round < rounds; round++) {
      const run = await closedLoop(() => cache.set(`w:${n++}`, n, { ttlMs, tags: ['hot'] }), level, sliceMs);
      rates.push(String(Math.round(run.ops / (run.elapsedMs / 1000))));
      ops += run.ops;
    }
    const server = PrivateRedis.delta(before, await redis.sample());
    process.stdout.write(
      `set with one tag, ${level} caller(s), ${sliceMs} ms slices: ${rates.join(', ')} ops/s; Redis CPU ${(server.cpuUs / ops).toFixed(2)} µs per set\n`,
    );
  }
}

/** The server's total µs and calls of EVALSHA so far (INFO commandstats). */
async function evalshaStats(admin: Redis): Promise<{ usec: number; calls: number }> {
  const info = (await admin.call('INFO', 'commandstats')) as string;
  const match = /^cmdstat_evalsha:calls=(\d+),usec=(\d+)/m.exec(info);
  return { calls: Number(match?.[1] ?? 0), usec: Number(match?.[2] ?? 0) };
}

async function script(admin: Redis, ttlMs: number, rounds: number, sliceMs: number): Promise<void> {
  const { lua, sha } = TAG_REGISTER_SCRIPT.single;
  await admin.script('LOAD', lua);
  const keys = [`${PREFIX}:script-tag:{t}:index`, `${PREFIX}:script-tag:{t}:e`];
  let n = 0;
  const perCall: string[] = [];
  for (let round = 0; round < rounds; round++) {
    const before = await evalshaStats(admin);
    const deadline = performance.now() + sliceMs;
    while (performance.now() < deadline) {
      const pipeline = admin.pipeline();
      for (let i = 0; i < 1000; i++) pipeline.evalsha(sha, 2, ...keys, `${PREFIX}:cache:{m${n++}}`, ttlMs, '');
      await pipeline.exec();
    }
    const after = await evalshaStats(admin);
    perCall.push(((after.usec - before.usec) / (after.calls - before.calls)).toFixed(2));
  }
  const size = await admin.call('ZCARD', keys[0]).catch(() => admin.scard(keys[0]));
  process.stdout.write(
    `registration script alone, ${n} calls: ${perCall.join(', ')} µs of server time per call (index: ${size} members)\n`,
  );
}

async function main(): Promise<void> {
  const entries = flag('entries', 100_000);
  const rate = flag('rate', 5000);
  const ttlMs = flag('ttl-ms', 1000);
  const callers = flag('callers', 32);
  const rounds = flag('rounds', 3);
  const sliceMs = flag('slice-ms', 3000);
  const redis = await PrivateRedis.start();
  const admin = new Redis(redis.url);
  @Module({
    imports: [
      RedisPatternsModule.forRoot({ connection: { host: '127.0.0.1', port: redis.port }, keyPrefix: PREFIX, cache: { jitter: 0 } }),
    ],
  })
  class TagBenchModule {}
  const app = await NestFactory.createApplicationContext(TagBenchModule, { logger: ['error'] });
  try {
    process.stdout.write(`Redis ${await redis.version()}\n`);
    const cache = app.get(CacheService);
    if (!process.argv.includes('--skip-growth')) await growth(cache, admin, entries, rate, ttlMs, callers);
    if (!process.argv.includes('--skip-writes')) await writes(cache, redis, ttlMs, callers, rounds, sliceMs);
    if (!process.argv.includes('--skip-script')) await script(admin, ttlMs, rounds, sliceMs);
  } finally {
    await app.close();
    admin.disconnect();
    await redis.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
