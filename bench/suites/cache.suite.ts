import KeyvRedis from '@keyv/redis';
import { createClient } from '@redis/client';
import { createCache, type Cache } from 'cache-manager';
import Redis from 'ioredis';
import { Keyv, type KeyvStoreAdapter } from 'keyv';
import type { BenchGroup, Contender, RatioSpec } from '../lib/contender';
import { libraryContender, unavailableContender } from '../lib/contenders';
import { createOurContextWithMetricsSdk } from '../lib/metrics-sdk';
import { createOurContext, libraryExport, missingExports, resolveService } from '../lib/our-library';
import { CACHE_TTL_S, CACHED_VALUE } from './payload';
import { HEADLINE_CONCURRENCY, peerTargetAt } from '../lib/sweep';
import type { SuiteContext } from './suite-context';

interface CacheServiceLike {
  get<T>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown, options: { ttl: number }): Promise<unknown>;
  wrap<T>(key: string, loader: () => Promise<T>, options: { ttl: number }): Promise<T>;
}

// One key per caller: cache-manager's wrap coalesces concurrent calls for the same key into one, which would
// measure coalescing instead of the cost of a hit. With a key per caller, every call is a real read.
const keyOf = (worker: number) => `user${worker}`;
const keysFor = (ctx: SuiteContext) => Array.from({ length: ctx.concurrency }, (_, w) => keyOf(w));
const JSON_TEXT = JSON.stringify(CACHED_VALUE);
const neverCalled = async (): Promise<never> => {
  throw new Error('loader called on a hit');
};

/** Throws when a "hit" returned nothing, so a broken contender shows errors instead of fast misses. */
function expectHit(value: unknown): void {
  if (value === undefined || value === null) throw new Error('cache miss during the hit benchmark');
}

function ourContenders(ctx: SuiteContext): Contender[] {
  const missing = missingExports('CacheService');
  if (missing) {
    return [unavailableContender('ours-get', 'CacheService.get', missing), unavailableContender('ours-wrap', 'CacheService.wrap', missing)];
  }
  let cache: CacheServiceLike;
  let close: (() => Promise<void>) | undefined;
  let users = 0;
  // Both contenders share one application context: set up by the first, closed by the last.
  const setup = async () => {
    if (users++ > 0) return;
    const app = await createOurContext(ctx.redis.url, 'bench-cache');
    cache = resolveService<CacheServiceLike>(app, 'CacheService');
    for (const key of keysFor(ctx)) await cache.set(key, CACHED_VALUE, { ttl: CACHE_TTL_S });
    close = () => app.close();
  };
  const teardown = async () => {
    if (--users === 0) await close?.();
  };
  return [
    libraryContender({
      id: 'ours-get',
      label: 'CacheService.get',
      concurrency: ctx.concurrency,
      setup,
      teardown,
      op: async (w) => expectHit(await cache.get(keyOf(w))),
    }),
    libraryContender({
      id: 'ours-wrap',
      label: 'CacheService.wrap (hit)',
      concurrency: ctx.concurrency,
      setup,
      teardown,
      op: async (w) => expectHit(await cache.wrap(keyOf(w), neverCalled, { ttl: CACHE_TTL_S })),
    }),
  ];
}

/** CacheService.get in an application created with the OpenTelemetry metrics SDK registered and exporting. */
function metricsSdkContender(ctx: SuiteContext): Contender {
  const missing = missingExports('CacheService');
  if (missing) return unavailableContender('ours-get-otel', 'CacheService.get (OpenTelemetry SDK)', missing);
  let cache: CacheServiceLike;
  let close: (() => Promise<void>) | undefined;
  return libraryContender({
    id: 'ours-get-otel',
    label: 'CacheService.get (OpenTelemetry SDK)',
    concurrency: ctx.concurrency,
    setup: async () => {
      const app = await createOurContextWithMetricsSdk(ctx.redis.url, 'bench-cache-otel');
      cache = resolveService<CacheServiceLike>(app, 'CacheService');
      for (const key of keysFor(ctx)) await cache.set(key, CACHED_VALUE, { ttl: CACHE_TTL_S });
      close = () => app.close();
    },
    teardown: async () => close?.(),
    op: async (w) => expectHit(await cache.get(keyOf(w))),
  });
}

/** CacheService.get with the near cache on: after the first read of each key, every hit is served from L1. */
function nearContender(ctx: SuiteContext): Contender {
  const missing = missingExports('CacheService');
  if (missing) return unavailableContender('ours-near-get', 'CacheService.get (near cache L1 hit)', missing);
  let cache: CacheServiceLike;
  let close: (() => Promise<void>) | undefined;
  return libraryContender({
    id: 'ours-near-get',
    label: 'CacheService.get (near cache L1 hit)',
    concurrency: ctx.concurrency,
    setup: async () => {
      const app = await createOurContext(ctx.redis.url, 'bench-near', { cache: { nearCache: { enabled: true } } });
      cache = resolveService<CacheServiceLike>(app, 'CacheService');
      for (const key of keysFor(ctx)) await cache.set(key, CACHED_VALUE, { ttl: CACHE_TTL_S });
      // Fill L1: the first read after a write may be discarded (the write's invalidation can overtake it).
      for (let pass = 0; pass < 3; pass++) for (const key of keysFor(ctx)) await cache.get(key);
      close = () => app.close();
    },
    teardown: async () => close?.(),
    op: async (w) => expectHit(await cache.get(keyOf(w))),
  });
}

function cacheManagerContenders(ctx: SuiteContext): Contender[] {
  let cache: Cache;
  let users = 0;
  const setup = async () => {
    if (users++ > 0) return;
    cache = createCache({ stores: [new Keyv({ store: new KeyvRedis(ctx.redis.url), namespace: 'bench-cm' })] });
    for (const key of keysFor(ctx)) await cache.set(key, CACHED_VALUE, CACHE_TTL_S * 1000);
  };
  const teardown = async () => {
    if (--users === 0) await cache.disconnect();
  };
  return [
    libraryContender({
      id: 'cm-get',
      label: 'cache-manager 7 + @keyv/redis get',
      concurrency: ctx.concurrency,
      setup,
      teardown,
      op: async (w) => expectHit(await cache.get(keyOf(w))),
    }),
    libraryContender({
      id: 'cm-wrap',
      label: 'cache-manager 7 + @keyv/redis wrap (hit)',
      concurrency: ctx.concurrency,
      setup,
      teardown,
      op: async (w) => expectHit(await cache.wrap(keyOf(w), neverCalled, CACHE_TTL_S * 1000)),
    }),
  ];
}

/** cache-manager 7 + Keyv on our store: the one-line migration route, against the @keyv/redis store it replaces. */
function keyvStoreContender(ctx: SuiteContext): Contender {
  const missing = missingExports('CacheService', 'RedisPatternsKeyvStore');
  if (missing) return unavailableContender('ours-keyv-get', 'cache-manager 7 + RedisPatternsKeyvStore get', missing);
  let cache: Cache;
  let close: (() => Promise<void>) | undefined;
  return libraryContender({
    id: 'ours-keyv-get',
    label: 'cache-manager 7 + RedisPatternsKeyvStore get',
    concurrency: ctx.concurrency,
    setup: async () => {
      const app = await createOurContext(ctx.redis.url, 'bench-keyv');
      const Store = libraryExport<new (service: unknown) => KeyvStoreAdapter>('RedisPatternsKeyvStore')!;
      const store = new Store(resolveService(app, 'CacheService'));
      // Keyv's own serializer off: the cache's codec stores the value, as the migration guide sets it up.
      cache = createCache({ stores: [new Keyv({ store, namespace: 'bench-cm', serialize: undefined, deserialize: undefined })] });
      for (const key of keysFor(ctx)) await cache.set(key, CACHED_VALUE, CACHE_TTL_S * 1000);
      close = () => app.close();
    },
    teardown: async () => close?.(),
    op: async (w) => expectHit(await cache.get(keyOf(w))),
  });
}

function ioredisContender(ctx: SuiteContext, autoPipelining: boolean): Contender {
  let client: Redis;
  const key = (w: number) => `raw:${keyOf(w)}`;
  return libraryContender({
    id: autoPipelining ? 'ioredis-ap' : 'ioredis',
    label: `ioredis GET + JSON.parse${autoPipelining ? ' (auto-pipelining)' : ''}`,
    concurrency: ctx.concurrency,
    setup: async () => {
      client = new Redis({ port: ctx.redis.port, host: '127.0.0.1', enableAutoPipelining: autoPipelining });
      for (let w = 0; w < ctx.concurrency; w++) await client.set(key(w), JSON_TEXT, 'EX', CACHE_TTL_S);
    },
    op: async (w) => expectHit(JSON.parse((await client.get(key(w))) as string)),
    teardown: async () => void client.disconnect(),
  });
}

function nodeRedisContender(ctx: SuiteContext): Contender {
  const client = createClient({ url: ctx.redis.url });
  const key = (w: number) => `noderedis:${keyOf(w)}`;
  return libraryContender({
    id: 'node-redis',
    label: 'node-redis (@redis/client) GET + JSON.parse',
    concurrency: ctx.concurrency,
    setup: async () => {
      await client.connect();
      for (let w = 0; w < ctx.concurrency; w++) await client.set(key(w), JSON_TEXT, { EX: CACHE_TTL_S });
    },
    op: async (w) => expectHit(JSON.parse((await client.get(key(w))) as string)),
    teardown: async () => void (await client.close()),
  });
}

/**
 * Cache hit: our get and wrap against cache-manager 7 + Keyv + @keyv/redis (what @nestjs/cache-manager uses), raw
 * ioredis GET + JSON.parse with and without auto-pipelining, and node-redis, which pipelines every concurrent
 * command by design (the practical limit of a Node client).
 */
export function cacheGroup(ctx: SuiteContext): BenchGroup {
  const c = ctx.concurrency;
  const contenders = [
    ...ourContenders(ctx),
    nearContender(ctx),
    ...cacheManagerContenders(ctx),
    keyvStoreContender(ctx),
    ioredisContender(ctx, false),
    ioredisContender(ctx, true),
    nodeRedisContender(ctx),
  ];
  const ratios: RatioSpec[] = [
    { label: 'CacheService.get / cache-manager get', numerator: 'ours-get', denominator: 'cm-get', target: peerTargetAt(c, 1.5) },
    { label: 'CacheService.wrap / cache-manager wrap', numerator: 'ours-wrap', denominator: 'cm-wrap', target: peerTargetAt(c, 1.5) },
    {
      label: 'cache-manager on RedisPatternsKeyvStore / on @keyv/redis',
      numerator: 'ours-keyv-get',
      denominator: 'cm-get',
      target: peerTargetAt(c, 1.0),
    },
    {
      label: 'CacheService.get / node-redis GET + JSON.parse',
      numerator: 'ours-get',
      denominator: 'node-redis',
      target: peerTargetAt(c, 1.0),
    },
    { label: 'CacheService.get / ioredis GET + JSON.parse (better row)', numerator: 'ours-get', denominator: ['ioredis', 'ioredis-ap'] },
    {
      label: 'near cache L1 hit / CacheService.get (Redis hit)',
      numerator: 'ours-near-get',
      denominator: 'ours-get',
      target: c === HEADLINE_CONCURRENCY ? 10 : undefined,
    },
  ];
  if (c === HEADLINE_CONCURRENCY) {
    contenders.push(metricsSdkContender(ctx));
    ratios.push({
      label: 'CacheService.get with the OpenTelemetry SDK / without',
      numerator: 'ours-get-otel',
      denominator: 'ours-get',
      target: 0.95,
    });
  }
  return {
    id: 'cache',
    title: 'Cache hit',
    unit: 'one read of a cached ~0.5 KB JSON value, deserialized',
    load: `${c} concurrent caller${c === 1 ? '' : 's'}, each reading its own key, closed loop`,
    probe: true,
    contenders,
    ratios,
  };
}
