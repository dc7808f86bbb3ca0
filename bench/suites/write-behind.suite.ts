import type { INestApplicationContext } from '@nestjs/common';
import type { BenchGroup } from '../lib/contender';
import { libraryContender, unavailableContender } from '../lib/contenders';
import { createOurContext, missingExports, resolveService } from '../lib/our-library';
import { CACHED_VALUE } from './payload';
import type { SuiteContext } from './suite-context';

interface WriteBehindServiceLike {
  write(queue: string, key: string, value: unknown): Promise<void>;
  registerWriter(queue: string, writer: (changes: ReadonlyArray<unknown>) => Promise<void>): void;
  pending(queue: string): Promise<number>;
}
interface CacheServiceLike {
  set(key: string, value: unknown, options?: { ttlMs?: number }): Promise<boolean>;
}

/** The data source's latency per query: a database one network hop away. */
const SOURCE_LATENCY_MS = 2;
const KEYS = 1_000;
const sourceQuery = () => new Promise<void>((resolve) => setTimeout(resolve, SOURCE_LATENCY_MS));

/**
 * Write-behind against write-through, on a data source that takes 2 ms per query. Write-through (what `@CachePut`
 * on a method that saves does) waits for the source, then sets the cache; write-behind answers once the write is in
 * Redis and saves batches later (one 2 ms query per batch). Redis CPU per write counts the flushes too: what
 * write-behind costs Redis for what it saves the caller.
 */
export function writeBehindGroup(ctx: SuiteContext): BenchGroup {
  const missing = missingExports('WriteBehindService', 'CacheService');
  let app: INestApplicationContext | undefined;
  let users = 0;
  let writeBehind: WriteBehindServiceLike;
  let cache: CacheServiceLike;
  const open = async () => {
    if (users++ > 0) return;
    app = await createOurContext(ctx.redis.url, 'bench-write-behind', { writeBehind: { delayMs: 100, batchSize: 1000 } });
    writeBehind = resolveService<WriteBehindServiceLike>(app, 'WriteBehindService');
    cache = resolveService<CacheServiceLike>(app, 'CacheService');
    writeBehind.registerWriter('bench', sourceQuery);
  };
  const close = async () => {
    if (--users === 0) await app?.close();
  };
  const keyOf = (w: number, i: number) => `row:${(w * 7919 + i) % KEYS}`;
  return {
    id: 'write-behind',
    title: 'Write-behind against write-through (a 2 ms data source)',
    unit: 'one write of a row (cache and data source)',
    load: `${ctx.concurrency} concurrent writer(s) over ${KEYS} rows, closed loop`,
    contenders: missing
      ? [
          unavailableContender('write-behind', 'WriteBehindService.write', missing),
          unavailableContender('write-through', 'save + CacheService.set', missing),
        ]
      : [
          libraryContender({
            id: 'write-behind',
            label: 'WriteBehindService.write (saved later, in batches)',
            concurrency: ctx.concurrency,
            setup: open,
            op: (w, i) => writeBehind.write('bench', keyOf(w, i), CACHED_VALUE),
            teardown: close,
          }),
          libraryContender({
            id: 'write-through',
            label: 'a 2 ms save, then CacheService.set (write-through)',
            concurrency: ctx.concurrency,
            setup: open,
            op: async (w, i) => {
              await sourceQuery();
              await cache.set(keyOf(w, i), CACHED_VALUE);
            },
            teardown: close,
          }),
        ],
    ratios: [
      { label: 'write-behind / write-through', numerator: 'write-behind', denominator: 'write-through', target: 2 },
      {
        label: 'write-behind / write-through, p50 latency',
        numerator: 'write-behind',
        denominator: 'write-through',
        metric: 'p50Ms',
        atMost: 0.5,
      },
      {
        label: 'write-behind / write-through, Redis CPU per write',
        numerator: 'write-behind',
        denominator: 'write-through',
        metric: 'redisCpuUsPerOp',
      },
    ],
  };
}
