// `node -r ./scripts/register-ts.js bench/tools/fast-paths.ts [callers…]`: what each single-policy script buys over
// the generic multi-policy script deciding the same one policy. Both through RedisExecutor.run, in alternating 300 ms
// slices on a private redis-server, allowed path, distinct keys. Prints per algorithm and level the within-pair
// ratio single / generic (p25, median, p75): a fast path stays only where it gains 10% or more.
import { Redis } from 'ioredis';
import { RedisExecutor } from '../../libs/redis-patterns/src/core/scripts/redis-executor';
import type { RedisScript } from '../../libs/redis-patterns/src/core/scripts/redis-script';
import { compilePolicies } from '../../libs/redis-patterns/src/rate-limit/compile-policies';
import type { RateLimitPolicy } from '../../libs/redis-patterns/src/rate-limit/rate-limit-policy';
import { CONSUME_SCRIPT } from '../../libs/redis-patterns/src/rate-limit/scripts/consume.script';
import { closedLoop } from '../lib/closed-loop';
import { PrivateRedis } from '../lib/private-redis';
import { quantile } from '../lib/stats';

const SLICE_MS = 300;
const PAIRS = 10;
const KEYS = 10_000;
const POLICIES: RateLimitPolicy[] = [
  { algorithm: 'fixed-window', limit: 1_000_000_000, windowMs: 60_000 },
  { algorithm: 'sliding-log', limit: 100_000, windowMs: 60_000 },
  { algorithm: 'sliding-window-counter', limit: 1_000_000_000, windowMs: 60_000 },
  { algorithm: 'token-bucket', capacity: 1_000_000_000, refillPerSecond: 1000 },
];

async function main(): Promise<void> {
  const levels = process.argv.slice(2).map(Number);
  const redis = await PrivateRedis.start();
  const client = new Redis(redis.port, '127.0.0.1');
  const executor = RedisExecutor.of(client);
  let nonce = 0;
  try {
    for (const policy of POLICIES) {
      const compiled = compilePolicies(policy, 'policy', (field) => new Error(field));
      const [p] = compiled.policies;
      const log = policy.algorithm === 'sliding-log';
      const key = (side: string, w: number, i: number) => `fp:${policy.algorithm}:${side}:{${(w * 7919 + i) % KEYS}}`;
      const sides: Record<'single' | 'generic', (w: number, i: number) => Promise<unknown>> = {
        single: (w, i) =>
          executor.run(compiled.call.script as RedisScript<unknown>, [key('s', w, i)], log ? [1, p.a, p.b, `n${nonce++}`] : [1, p.a, p.b]),
        generic: (w, i) => executor.run(CONSUME_SCRIPT, [key('g', w, i)], [1, log ? `n${nonce++}` : '', p.code, p.a, p.b, 0]),
      };
      for (const callers of levels.length ? levels : [1, 64]) {
        const ratios: number[] = [];
        for (let pair = 0; pair < PAIRS; pair++) {
          const order = pair % 2 === 0 ? (['single', 'generic'] as const) : (['generic', 'single'] as const);
          const rate: Record<string, number> = {};
          for (const side of order) {
            const run = await closedLoop(sides[side], callers, SLICE_MS);
            rate[side] = run.ops / run.elapsedMs;
          }
          ratios.push(rate.single / rate.generic);
        }
        const [p25, p50, p75] = [0.25, 0.5, 0.75].map((q) => quantile(ratios, q).toFixed(2));
        process.stdout.write(`${policy.algorithm}, ${callers} callers: single / generic ${p50}× (p25–p75 ${p25}–${p75})\n`);
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
