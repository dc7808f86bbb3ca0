// `node -r ./scripts/register-ts.js bench/tools/async-context.ts`: what an enabled AsyncLocalStorage costs code that
// never uses it. Node (before AsyncContextFrame) tracks every promise of the process while any AsyncLocalStorage is
// enabled, and one stays enabled after its first run(). Each mode runs in its own process (a hook once on would
// stay on for the next mode): after nothing, after one AsyncLocalStorage.run() (what LockService.current() used to
// leave behind), after one ScopedContext.run() (what it uses now), and after LockService.using() on a private
// redis-server. Then it times a loop of awaits outside any context: CPU per 10 awaits, p25–median–p75 of 9 samples.
// The committed output is bench/results/async-context.txt.
import { AsyncLocalStorage } from 'node:async_hooks';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { ScopedContext } from '../../libs/redis-patterns/src/core/context/scoped-context';
import { createOurContext, resolveService } from '../lib/our-library';
import { PrivateRedis } from '../lib/private-redis';
import { quantile } from '../lib/stats';

const MODES = ['nothing', 'AsyncLocalStorage.run', 'ScopedContext.run', 'LockService.using'] as const;
type Mode = (typeof MODES)[number];
const LOOPS = 20_000;
const SAMPLES = 9;

/** CPU µs per 10 awaits of already settled promises, with no context entered. */
async function tenAwaitsUs(): Promise<number> {
  const cpu = process.cpuUsage();
  for (let i = 0; i < LOOPS; i++) for (let j = 0; j < 10; j++) await Promise.resolve(j);
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / LOOPS;
}

async function before(mode: Mode): Promise<void> {
  if (mode === 'AsyncLocalStorage.run') await new AsyncLocalStorage<number>().run(1, async () => undefined);
  if (mode === 'ScopedContext.run') await new ScopedContext<number>().run(1, async () => undefined);
  if (mode === 'LockService.using') {
    const redis = await PrivateRedis.start();
    const app = await createOurContext(redis.url, 'async-context');
    const locks = resolveService<{ using(resource: string, work: () => Promise<unknown>): Promise<unknown> }>(app, 'LockService');
    for (let i = 0; i < 100; i++) await locks.using(`r${i}`, async () => undefined);
    await app.close();
    await redis.stop();
  }
}

async function measure(mode: Mode): Promise<string> {
  await before(mode);
  await tenAwaitsUs(); // warm-up
  const samples: number[] = [];
  for (let i = 0; i < SAMPLES; i++) samples.push(await tenAwaitsUs());
  const [p25, p50, p75] = [0.25, 0.5, 0.75].map((q) => quantile(samples, q).toFixed(2));
  return `after ${mode}: 10 awaits outside any context cost ${p50} µs (p25–p75 ${p25}–${p75})`;
}

async function main(): Promise<void> {
  const mode = process.argv[2] as Mode | undefined;
  if (mode) {
    process.stdout.write(`${await measure(mode)}\n`);
    return;
  }
  const lines = MODES.map((m) =>
    execFileSync(process.execPath, ['-r', join(__dirname, '../../scripts/register-ts.js'), __filename, m], { encoding: 'utf8' }).trim(),
  );
  process.stdout.write(
    ['# bench/tools/async-context.ts: each mode in its own process, 9 samples of 20,000 × 10 awaits', ...lines, ''].join('\n'),
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
