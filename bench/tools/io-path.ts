// `node -r ./scripts/register-ts.js bench/tools/io-path.ts [callers…]`: the library's I/O path alone, without a
// pattern around it. The fixed-window script through RedisExecutor.run against the same script sent as a plain
// EVALSHA by ioredis (what a hand-written limiter does), in alternating 300 ms slices on a private redis-server, at
// each concurrency. Prints per level the within-pair ratio (p25, median, p75) and the library's commands per call:
// how the adaptive batching rule was chosen (bench/results/PROFILES.md).
import { Redis } from 'ioredis';
import { RedisExecutor } from '../../libs/redis-patterns/src/core/scripts/redis-executor';
import { singleFixedWindowScript } from '../../libs/redis-patterns/src/rate-limit/scripts/single-policy.script';
import { closedLoop } from '../lib/closed-loop';
import { PrivateRedis } from '../lib/private-redis';
import { quantile } from '../lib/stats';

const SLICE_MS = 300;
const PAIRS = 12;
const KEYS = 10_000;

async function main(): Promise<void> {
  const levels = process.argv.slice(2).map(Number);
  const redis = await PrivateRedis.start();
  const ours = new Redis(redis.port, '127.0.0.1');
  const plain = new Redis(redis.port, '127.0.0.1');
  try {
    const executor = RedisExecutor.of(ours);
    const { sha, lua } = singleFixedWindowScript.single;
    await plain.script('LOAD', lua);
    const args = ['1', '1000000000', '60000'];
    const key = (w: number, i: number) => `io:{${(w * 7919 + i) % KEYS}}`;
    const contenders = {
      ours: (w: number, i: number) => executor.run(singleFixedWindowScript, [key(w, i)], args),
      plain: (w: number, i: number) => plain.evalsha(sha, 1, key(w, i), ...args),
    };
    for (const callers of levels.length ? levels : [1, 8, 64]) {
      const ratios: number[] = [];
      let commands = 0;
      let calls = 0;
      for (let pair = 0; pair < PAIRS; pair++) {
        const order = pair % 2 === 0 ? (['ours', 'plain'] as const) : (['plain', 'ours'] as const);
        const rate: Record<string, number> = {};
        for (const name of order) {
          const before = name === 'ours' ? await evalshaCount(plain) : 0;
          const run = await closedLoop(contenders[name], callers, SLICE_MS);
          rate[name] = run.ops / run.elapsedMs;
          if (name === 'ours') {
            commands += (await evalshaCount(plain)) - before - 1;
            calls += run.ops;
          }
        }
        ratios.push(rate.ours / rate.plain);
        if (process.env.IO_PATH_VERBOSE)
          process.stdout.write(`  ${callers}: ours ${Math.round(rate.ours * 1000)}/s plain ${Math.round(rate.plain * 1000)}/s\n`);
      }
      const [p25, p50, p75] = [0.25, 0.5, 0.75].map((q) => quantile(ratios, q).toFixed(2));
      process.stdout.write(
        `${callers} callers: ours / plain EVALSHA ${p50}× (p25–p75 ${p25}–${p75}), ${(commands / calls).toFixed(2)} commands per call\n`,
      );
    }
  } finally {
    ours.disconnect();
    plain.disconnect();
    await redis.stop();
  }
}

// EVALSHA calls so far (the INFO call itself is not one).
async function evalshaCount(client: Redis): Promise<number> {
  const info = await client.info('commandstats');
  return Number(/cmdstat_evalsha:calls=(\d+)/.exec(info)?.[1] ?? 0);
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
