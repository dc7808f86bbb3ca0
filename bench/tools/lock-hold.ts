// `node -r ./scripts/register-ts.js bench/tools/lock-hold.ts [callers…]`: what holding a lock costs the client, on a
// private redis-server, in one application context. Four ways to hold an uncontended lock around work that returns
// at once, in alternating 300 ms slices at each concurrency: LockService.acquire + Lock.release (the two round trips
// alone), a provider's @WithLock method (the decorator's wrapper: the same two round trips, plus the keep-alive,
// the async context of `current()` and the release at the end), LockService.using(), and the decorator's hold
// without the async context (the library's HeldLeases with no `enter`: what `current()` costs, by difference).
// Prints per level each way's client CPU per hold and its rate relative to acquire + release (within-round ratio,
// p25–p75): the source of what bench/results/PROFILES.md says of @WithLock's cost.
import 'reflect-metadata';
import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger } from '@nestjs/common';
import { LockService, RedisPatternsModule, WithLock } from '../../libs/redis-patterns/src';
import { HeldLeases } from '../../libs/redis-patterns/src/lease/held-leases';
import type { Lock } from '../../libs/redis-patterns/src/lock/lock';
import { closedLoop } from '../lib/closed-loop';
import { PrivateRedis } from '../lib/private-redis';
import { quantile } from '../lib/stats';

const SLICE_MS = 300;
const ROUNDS = 12;
const RESOURCES = 10_000;

@Injectable()
class Orders {
  @WithLock({ resource: (id: string) => `order:${id}`, ttlMs: 5_000 })
  async fulfil(id: string): Promise<string> {
    return id;
  }
}

type Way = 'acquire + release' | '@WithLock method' | 'using()' | 'hold, no async context';

async function main(): Promise<void> {
  const levels = process.argv.slice(2).map(Number);
  const redis = await PrivateRedis.start();
  @Module({
    imports: [RedisPatternsModule.forRoot({ connection: { host: '127.0.0.1', port: redis.port }, keyPrefix: 'hold' })],
    providers: [Orders],
  })
  class HoldModule {}
  const app = await NestFactory.createApplicationContext(HoldModule, { logger: ['error'] });
  try {
    const locks = app.get(LockService);
    const orders = app.get(Orders);
    const resource = (w: number, i: number) => String((w * 7919 + i) % RESOURCES);
    const bare = new HeldLeases<Lock>({ autoExtendRatio: 1 / 3, logger: new Logger('hold'), logContext: 'hold', lost: () => undefined });
    const holdBare = (lock: Lock, i: number): Promise<unknown> =>
      'runAdvised' in bare ? bare.runAdvised(lock, () => i) : (bare as HeldLeases<Lock>).run(lock, () => i);
    const ways: Record<Way, (w: number, i: number) => Promise<unknown>> = {
      'acquire + release': async (w, i) => (await locks.acquire(`order:${resource(w, i)}`, { ttlMs: 5_000 })).release(),
      '@WithLock method': (w, i) => orders.fulfil(resource(w, i)),
      'using()': (w, i) => locks.using(`order:${resource(w, i)}`, () => i, { ttlMs: 5_000 }),
      'hold, no async context': async (w, i) => holdBare(await locks.acquire(`order:${resource(w, i)}`, { ttlMs: 5_000 }), i),
    };
    const names = Object.keys(ways) as Way[];
    for (const callers of levels.length ? levels : [1, 8, 32]) {
      const cpu = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<Way, number[]>;
      const ratio = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<Way, number[]>;
      for (let round = 0; round < ROUNDS; round++) {
        const rate = {} as Record<Way, number>;
        // Each round in another order, so no way always runs first or right after another.
        for (const name of names.map((_, k) => names[(k + round) % names.length])) {
          const before = process.cpuUsage();
          const run = await closedLoop(ways[name], callers, SLICE_MS);
          const used = process.cpuUsage(before);
          rate[name] = run.ops / run.elapsedMs;
          cpu[name].push((used.user + used.system) / run.ops);
        }
        for (const name of names) ratio[name].push(rate[name] / rate['acquire + release']);
      }
      const range = (values: number[], digits: number) => {
        const [p25, p50, p75] = [0.25, 0.5, 0.75].map((q) => quantile(values, q).toFixed(digits));
        return `${p50} (p25–p75 ${p25}–${p75})`;
      };
      for (const name of names) {
        const relative = name === 'acquire + release' ? '' : `, holds/s ${range(ratio[name], 2)}× acquire + release`;
        process.stdout.write(`${callers} callers: ${name}: client CPU ${range(cpu[name], 1)} µs per hold${relative}\n`);
      }
    }
  } finally {
    await app.close();
    await redis.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
