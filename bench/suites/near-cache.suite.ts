import type { INestApplicationContext } from '@nestjs/common';
import type { BenchGroup, Contender } from '../lib/contender';
import { libraryContender, unavailableContender } from '../lib/contenders';
import { createOurContext, missingExports, resolveService } from '../lib/our-library';
import { quantile } from '../lib/stats';
import type { GroupResult } from '../lib/runner';
import type { SuiteContext } from './suite-context';

interface NearCacheLike {
  get<T>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown, options: { ttl: number }): Promise<unknown>;
  nearStats(): { hits: number; live: boolean };
}

const KEY = 'stale-probe';
/** Every staleness sample (ms) of the run, for the note: time from a write's reply on A until B serves it. */
const samples: number[] = [];
const yieldToIo = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Staleness after a remote write: instance A writes a new version of a key that instance B holds in its L1; the
 * sample is the time from A's write being acknowledged until B's `get` stops returning the old version (B polls,
 * yielding to I/O between reads, so the invalidation message is handled as soon as it arrives). Before each write B
 * is made to hold the current version in L1, so every sample measures an invalidation, not a plain miss.
 */
function stalenessContender(ctx: SuiteContext): Contender {
  const missing = missingExports('CacheService');
  if (missing) return unavailableContender('near-staleness', 'near cache staleness after a remote write', missing);
  let apps: INestApplicationContext[] = [];
  let a: NearCacheLike;
  let b: NearCacheLike;
  let version = 0;
  const holdInL1 = async (expected: number) => {
    for (let i = 0; i < 1000; i++) {
      const hits = b.nearStats().hits;
      if ((await b.get<number>(KEY)) === expected && b.nearStats().hits > hits) return;
      await yieldToIo();
    }
    throw new Error('B never held the value in L1');
  };
  return libraryContender({
    id: 'near-staleness',
    label: 'near cache: write on A, until B stops serving the old value',
    concurrency: 1,
    setup: async () => {
      const sections = { cache: { jitter: 0, nearCache: { enabled: true } } };
      apps = [
        await createOurContext(ctx.redis.url, 'bench-stale', sections),
        await createOurContext(ctx.redis.url, 'bench-stale', sections),
      ];
      [a, b] = apps.map((app) => resolveService<NearCacheLike>(app, 'CacheService'));
      await a.set(KEY, version, { ttl: 3600 });
      await holdInL1(version);
    },
    teardown: async () => void (await Promise.all(apps.map((app) => app.close()))),
    op: async () => {
      const next = ++version;
      await a.set(KEY, next, { ttl: 3600 });
      const acknowledged = performance.now();
      while ((await b.get<number>(KEY)) !== next) await yieldToIo();
      samples.push(performance.now() - acknowledged);
      await holdInL1(next);
    },
  });
}

export function nearCacheGroup(ctx: SuiteContext): BenchGroup {
  samples.length = 0;
  return {
    id: 'near-cache',
    title: 'Near cache staleness',
    unit: 'one remote write observed by the other instance (ops/s is not the metric: see the note)',
    load: 'two app instances on one Redis, one write at a time',
    contenders: [stalenessContender(ctx)],
    ratios: [],
  };
}

/** The staleness distribution, with the target (p99 < 10 ms on loopback). */
export function nearCacheNotes(result: GroupResult): string[] {
  if (samples.length === 0 || result.contenders.every((c) => c.unavailable)) return [];
  const p = (q: number) => quantile(samples, q).toFixed(3);
  const p99 = quantile(samples, 0.99);
  return [
    `Near cache staleness after a write on another instance (${samples.length} writes): p50 ${p(0.5)} ms, p99 ${p(0.99)} ms, max ${Math.max(...samples).toFixed(3)} ms — target p99 < 10 ms: ${p99 < 10 ? 'met' : 'MISSED'}.`,
  ];
}
