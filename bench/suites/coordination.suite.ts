import Redis from 'ioredis';
import { Semaphore } from 'redis-semaphore';
import type { BenchGroup } from '../lib/contender';
import { libraryContender, unavailableContender } from '../lib/contenders';
import { createOurContext, missingExports, resolveService } from '../lib/our-library';
import { CACHED_VALUE } from './payload';
import { peerTargetAt } from '../lib/sweep';
import type { SuiteContext } from './suite-context';

interface PermitLike {
  release(): Promise<unknown>;
}
interface SemaphoreServiceLike {
  acquire(resource: string, permits: number, options: { ttlMs: number; waitMs?: number }): Promise<PermitLike>;
}
interface IdempotencyServiceLike {
  execute<T>(key: string, work: () => Promise<T>, options?: { ttlMs?: number }): Promise<T>;
}

const TTL_MS = 10_000;
const JSON_TEXT = JSON.stringify(CACHED_VALUE);

const neverCalled = async (): Promise<never> => {
  throw new Error('the stored result should have been replayed');
};

/**
 * Semaphores: acquire + release of a permit of one shared semaphore with more permits than workers. Ours
 * (SemaphoreService: owner token, TTL and fencing token per permit, expired holders pruned by Redis time) against
 * redis-semaphore's Semaphore (the npm package users pick for this; no fencing), both on one ioredis connection.
 */
export function semaphoreGroup(ctx: SuiteContext): BenchGroup {
  // More permits than workers: every acquisition succeeds at once, the cost measured is the protocol's, not waiting.
  const PERMITS = 2 * ctx.concurrency;
  const missing = missingExports('SemaphoreService');
  let ours: SemaphoreServiceLike;
  let closeOurs: (() => Promise<void>) | undefined;
  let peerClient: Redis;
  return {
    id: 'semaphore',
    title: 'Semaphores: acquire + release, permits available',
    unit: 'acquire + release of one permit',
    load: `${ctx.concurrency} concurrent worker(s) on one semaphore of ${PERMITS} permits, closed loop`,
    probe: true,
    contenders: [
      missing
        ? unavailableContender('ours', 'SemaphoreService acquire + release', missing)
        : libraryContender({
            id: 'ours',
            label: 'SemaphoreService acquire + release',
            concurrency: ctx.concurrency,
            setup: async () => {
              const app = await createOurContext(ctx.redis.url, 'bench-semaphore');
              ours = resolveService<SemaphoreServiceLike>(app, 'SemaphoreService');
              closeOurs = () => app.close();
            },
            op: async () => (await ours.acquire('partner-api', PERMITS, { ttlMs: TTL_MS, waitMs: 1_000 })).release(),
            teardown: async () => closeOurs?.(),
          }),
      libraryContender({
        id: 'redis-semaphore',
        label: 'redis-semaphore Semaphore acquire + release',
        concurrency: ctx.concurrency,
        setup: async () => {
          peerClient = new Redis({ port: ctx.redis.port, host: '127.0.0.1' });
        },
        op: async () => {
          const semaphore = new Semaphore(peerClient, 'bench-rs:partner-api', PERMITS, {
            lockTimeout: TTL_MS,
            acquireTimeout: 1_000,
            refreshInterval: 0,
          });
          await semaphore.acquire();
          await semaphore.release();
        },
        teardown: async () => void peerClient.disconnect(),
      }),
    ],
    ratios: [
      {
        label: 'SemaphoreService / redis-semaphore',
        numerator: 'ours',
        denominator: 'redis-semaphore',
        target: peerTargetAt(ctx.concurrency, undefined),
      },
    ],
  };
}

/**
 * Idempotency keys: a duplicate call answered from the stored result. Ours (IdempotencyService.execute: one claim
 * script that answers the stored record, then decoding it) against the floor of any such store, a hand-written GET of
 * the stored JSON and JSON.parse. No npm peer stores results per idempotency key on Redis.
 */
export function idempotencyGroup(ctx: SuiteContext): BenchGroup {
  const missing = missingExports('IdempotencyService');
  let ours: IdempotencyServiceLike;
  let closeOurs: (() => Promise<void>) | undefined;
  let raw: Redis;
  const keyOf = (w: number) => `payment-${w}`;
  return {
    id: 'idempotency',
    title: 'Idempotency keys: a duplicate answered from the stored result',
    unit: 'one replayed call',
    load: `${ctx.concurrency} concurrent caller(s), each replaying its own key, closed loop`,
    probe: true,
    contenders: [
      missing
        ? unavailableContender('ours', 'IdempotencyService.execute (replay)', missing)
        : libraryContender({
            id: 'ours',
            label: 'IdempotencyService.execute (replay)',
            concurrency: ctx.concurrency,
            setup: async () => {
              const app = await createOurContext(ctx.redis.url, 'bench-idempotency');
              ours = resolveService<IdempotencyServiceLike>(app, 'IdempotencyService');
              for (let w = 0; w < ctx.concurrency; w++) await ours.execute(keyOf(w), async () => CACHED_VALUE);
              closeOurs = () => app.close();
            },
            op: async (w) => {
              const replayed = await ours.execute(keyOf(w), neverCalled);
              if ((replayed as { id?: number }).id !== CACHED_VALUE.id) throw new Error('unexpected replay');
            },
            teardown: async () => closeOurs?.(),
          }),
      libraryContender({
        id: 'raw',
        label: 'hand-written GET + JSON.parse of a stored result',
        concurrency: ctx.concurrency,
        setup: async () => {
          raw = new Redis({ port: ctx.redis.port, host: '127.0.0.1' });
          for (let w = 0; w < ctx.concurrency; w++) await raw.set(`bench-idem-raw:${keyOf(w)}`, JSON_TEXT, 'PX', 3_600_000);
        },
        op: async (w) => {
          const replayed = JSON.parse((await raw.get(`bench-idem-raw:${keyOf(w)}`)) as string) as { id: number };
          if (replayed.id !== CACHED_VALUE.id) throw new Error('unexpected replay');
        },
        teardown: async () => void raw.disconnect(),
      }),
    ],
    ratios: [{ label: 'IdempotencyService replay / hand-written GET + JSON.parse', numerator: 'ours', denominator: 'raw' }],
  };
}
