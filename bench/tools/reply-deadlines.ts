// `node -r ./scripts/register-ts.js bench/tools/reply-deadlines.ts [callers…]`: what a command deadline costs a
// caller. The fixed-window script as a plain ioredis EVALSHA on three connections to one private redis-server, in
// rotating 300 ms slices at each concurrency: without a deadline; with ioredis' own (`commandTimeout` and the
// silent-socket `socketTimeout`, a timer per command and a `data` listener per command written to an idle socket);
// with the library's sweep (`ReplyDeadlines`). Prints per level each deadline's rate over the no-deadline one inside
// each rotation (p25, median, p75) and the client CPU per call of each: bench/results/reply-deadlines.txt.
import { Redis } from 'ioredis';
import { failFastOptions, silentSocketDeadlineMs } from '../../libs/redis-patterns/src/core/connections/fail-fast-defaults';
import { ReplyDeadlines } from '../../libs/redis-patterns/src/core/connections/reply-deadlines';
import { singleFixedWindowScript } from '../../libs/redis-patterns/src/rate-limit/scripts/single-policy.script';
import { closedLoop } from '../lib/closed-loop';
import { PrivateRedis } from '../lib/private-redis';
import { quantile } from '../lib/stats';

const SLICE_MS = 300;
const ROTATIONS = 16;
const KEYS = 100_000;
const DEADLINE_MS = 500;

async function main(): Promise<void> {
  const levels = process.argv.slice(2).map(Number);
  const redis = await PrivateRedis.start();
  const open = (options: object) => new Redis({ port: redis.port, host: '127.0.0.1', ...failFastOptions(2000), ...options });
  const clients = {
    none: open({}),
    ioredis: open({ commandTimeout: DEADLINE_MS, socketTimeout: silentSocketDeadlineMs(DEADLINE_MS) }),
    sweep: open({}),
  };
  ReplyDeadlines.keep(clients.sweep, DEADLINE_MS);
  const names = Object.keys(clients) as Array<keyof typeof clients>;
  try {
    await Promise.all(names.map((name) => clients[name].connect()));
    const { sha, lua } = singleFixedWindowScript.single;
    await clients.none.script('LOAD', lua);
    const args = ['1', '1000000000', '60000'];
    let n = 0;
    const call = (client: Redis) => () => client.evalsha(sha, 1, `rd:{${(n = (n + 7919) % KEYS)}}`, ...args);
    for (const callers of levels.length ? levels : [1, 8]) {
      const rates: Record<string, number[]> = { ioredis: [], sweep: [] };
      const cpu: Record<string, number[]> = { none: [], ioredis: [], sweep: [] };
      for (let rotation = 0; rotation < ROTATIONS; rotation++) {
        const order = names.map((_, i) => names[(i + rotation) % names.length]);
        const rate: Record<string, number> = {};
        for (const name of order) {
          const before = process.cpuUsage();
          const run = await closedLoop(call(clients[name]), callers, SLICE_MS);
          const used = process.cpuUsage(before);
          rate[name] = run.ops / run.elapsedMs;
          cpu[name].push((used.user + used.system) / run.ops);
        }
        rates.ioredis.push(rate.ioredis / rate.none);
        rates.sweep.push(rate.sweep / rate.none);
      }
      const q = (values: number[], digits: number) => [0.25, 0.5, 0.75].map((p) => quantile(values, p).toFixed(digits));
      const line = (name: string, label: string) => {
        const [p25, p50, p75] = q(rates[name], 2);
        const [c25, c50, c75] = q(cpu[name], 1);
        return `  ${label}: ${p50}× (p25–p75 ${p25}–${p75}) the rate without a deadline, ${c50} µs client CPU per call (p25–p75 ${c25}–${c75})\n`;
      };
      const [n25, n50, n75] = q(cpu.none, 1);
      process.stdout.write(
        `${callers} caller${callers === 1 ? '' : 's'}: no deadline ${n50} µs client CPU per call (p25–p75 ${n25}–${n75})\n` +
          line('ioredis', "ioredis' commandTimeout + socketTimeout") +
          line('sweep', 'ReplyDeadlines (one sweep per connection)'),
      );
    }
  } finally {
    for (const name of names) clients[name].disconnect();
    await redis.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
