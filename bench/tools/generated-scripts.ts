// `node -r ./scripts/register-ts.js bench/tools/generated-scripts.ts [--only name,name] [callers…]`: the rate-limit
// scripts written from the algorithms' functions (rate-limit/scripts/single-policy.script.ts; the fixed windows'
// script, multi-fixed-window.script.ts) against the hand-written copies they
// replaced, read from git at HAND_REV. Both through RedisExecutor.run, in alternating 300 ms slices on a private
// redis-server, allowed path, distinct keys. Prints per script and level the within-pair ratios generated /
// hand-written of calls/s and of Redis CPU per call (p25, median, p75). A generated script replaces a copy unless the
// copy gains 10% or more.
import { execFileSync } from 'node:child_process';
import { Redis } from 'ioredis';
import { RedisExecutor } from '../../libs/redis-patterns/src/core/scripts/redis-executor';
import { defineScript, type RedisScript } from '../../libs/redis-patterns/src/core/scripts/redis-script';
import { multiFixedWindowScript } from '../../libs/redis-patterns/src/rate-limit/scripts/multi-fixed-window.script';
import { FUTURE_HITS_LUA } from '../../libs/redis-patterns/src/rate-limit/scripts/future-hits.lua';
import { REDIS_CLOCK_LUA } from '../../libs/redis-patterns/src/rate-limit/scripts/redis-clock.lua';
import * as generated from '../../libs/redis-patterns/src/rate-limit/scripts/single-policy.script';
import { closedLoop } from '../lib/closed-loop';
import { PrivateRedis } from '../lib/private-redis';
import { quantile } from '../lib/stats';

const HAND_REV = '92c47fd';
const SLICE_MS = 300;
const PAIRS = 14;
const KEYS = 10_000;

// The Lua body of a hand-written script at HAND_REV (the template literal after its name).
function handWritten(file: string, prelude = ''): RedisScript<unknown> {
  const source = execFileSync('git', ['show', `${HAND_REV}:libs/redis-patterns/src/rate-limit/scripts/${file}.script.ts`], {
    encoding: 'utf8',
  });
  const body = /defineScript<number\[\]>\(\s*'(\w+)',\s*`([\s\S]*?)`,/.exec(source);
  if (!body) throw new Error(`no script body in ${file} at ${HAND_REV}`);
  return defineScript(`${body[1]}_hand`, body[2], { prelude });
}

const CLOCK = REDIS_CLOCK_LUA;
type Args = (nonce: string) => Array<string | number>;
const CASES: Array<{ name: string; keys: number; hand: RedisScript<unknown>; ours: RedisScript<unknown>; args: Args; oursArgs?: Args }> = [
  {
    name: 'fixed-window',
    keys: 1,
    hand: handWritten('single-fixed-window'),
    ours: generated.singleFixedWindowScript,
    args: () => [1, 1e9, 60_000],
  },
  {
    name: 'two fixed windows',
    keys: 2,
    hand: handWritten('multi-fixed-window'),
    ours: multiFixedWindowScript,
    args: () => [1, '', 1, 1e9, 1000, 1, 1e9, 86_400_000],
  },
  {
    name: 'sliding-log',
    keys: 1,
    hand: handWritten('single-sliding-log', `${CLOCK}${FUTURE_HITS_LUA}`),
    ours: generated.singleSlidingLogScript,
    args: (nonce) => [1, 100_000, 60_000, nonce],
  },
  {
    name: 'sliding-window-counter',
    keys: 1,
    hand: handWritten('single-sliding-window-counter', CLOCK),
    ours: generated.singleSlidingWindowCounterScript,
    args: () => [1, 1e9, 60_000],
  },
  {
    name: 'token-bucket',
    keys: 1,
    hand: handWritten('single-token-bucket', CLOCK),
    ours: generated.singleTokenBucketScript,
    args: () => [1, 1e9, 1000],
  },
];

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const onlyAt = argv.indexOf('--only');
  const only = onlyAt >= 0 ? argv.splice(onlyAt, 2)[1].split(',') : undefined;
  const levels = argv.map(Number);
  const redis = await PrivateRedis.start();
  const client = new Redis(redis.port, '127.0.0.1');
  const executor = RedisExecutor.of(client);
  let nonce = 0;
  try {
    for (const { name, keys, hand, ours, args, oursArgs = args } of CASES) {
      if (only && !only.includes(name)) continue;
      const keysOf = (side: string, w: number, i: number) =>
        Array.from({ length: keys }, (_, k) => `gs:${name}:${side}:${k}:{${(w * 7919 + i) % KEYS}}`);
      const sides = {
        hand: (w: number, i: number) => executor.run(hand, keysOf('h', w, i), args(`n${nonce++}`)),
        ours: (w: number, i: number) => executor.run(ours, keysOf('g', w, i), oursArgs(`n${nonce++}`)),
      };
      for (const callers of levels.length ? levels : [1, 8, 64]) {
        const ratios: number[] = [];
        const cpuRatios: number[] = [];
        for (let pair = 0; pair < PAIRS; pair++) {
          const order = pair % 2 === 0 ? (['hand', 'ours'] as const) : (['ours', 'hand'] as const);
          const rate: Record<string, number> = {};
          const cpu: Record<string, number> = {};
          for (const side of order) {
            const before = await redis.sample();
            const run = await closedLoop(sides[side], callers, SLICE_MS);
            cpu[side] = PrivateRedis.delta(before, await redis.sample()).cpuUs / run.ops;
            rate[side] = run.ops / run.elapsedMs;
          }
          ratios.push(rate.ours / rate.hand);
          cpuRatios.push(cpu.ours / cpu.hand);
        }
        const [p25, p50, p75] = [0.25, 0.5, 0.75].map((q) => quantile(ratios, q).toFixed(2));
        const [c25, c50, c75] = [0.25, 0.5, 0.75].map((q) => quantile(cpuRatios, q).toFixed(2));
        process.stdout.write(
          `${name}, ${callers} callers: generated / hand-written ${p50}× (p25–p75 ${p25}–${p75}); Redis CPU per call ${c50}× (p25–p75 ${c25}–${c75})\n`,
        );
      }
    }
  } finally {
    client.disconnect();
    await redis.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
