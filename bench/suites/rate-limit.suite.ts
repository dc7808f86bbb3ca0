import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import Redis from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import type { BenchGroup, Contender, RatioSpec } from '../lib/contender';
import { libraryContender, unavailableContender } from '../lib/contenders';
import { createOurContextWithMetricsSdk } from '../lib/metrics-sdk';
import { createOurContext, libraryExport, missingExports, resolveService } from '../lib/our-library';
import type { SuiteContext } from './suite-context';

/** The part of RateLimiterService the benchmark calls. */
export interface RateLimiterLike {
  consume(key: string, policy: object | readonly object[]): Promise<{ allowed: boolean }>;
}

export const RL_CONCURRENCY = 32;
const WINDOW_MS = 60_000;
const LIMIT = 100;
// Many clients, each seen a few times per run: every decision is an "allowed" one on a realistic key space
// (a sliding log with one hot key and a huge limit would measure a growing sorted set instead).
const KEY_SPACE = 100_000;

/** Our policies, one per algorithm, all allowing LIMIT per WINDOW_MS. */
export const POLICIES: Record<string, object> = {
  'fixed-window': { algorithm: 'fixed-window', limit: LIMIT, windowMs: WINDOW_MS },
  'sliding-window': { algorithm: 'sliding-window', limit: LIMIT, windowMs: WINDOW_MS },
  'sliding-window-counter': { algorithm: 'sliding-window-counter', limit: LIMIT, windowMs: WINDOW_MS },
  'token-bucket': { algorithm: 'token-bucket', capacity: LIMIT, refillPerSecond: LIMIT / (WINDOW_MS / 1000) },
  gcra: { algorithm: 'gcra', limit: LIMIT, periodMs: WINDOW_MS },
};

// One round trip, like ours: INCR, set the expiry on the first hit, return the count and the remaining TTL.
const FIXED_WINDOW_LUA = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return { count, redis.call('PTTL', KEYS[1]) }`;

/** A key generator cycling through KEY_SPACE client ids. */
export function clientKeys(prefix: string): () => string {
  let n = 0;
  return () => `${prefix}${(n = (n + 7919) % KEY_SPACE)}`;
}

/** Fails the operation when a decision denies (so a misconfigured contender shows errors, not fast denials). */
export function expectAllowed(decision: { allowed: boolean }): void {
  if (!decision.allowed) throw new Error('denied during the allowed-path benchmark');
}

/** One shared application context for several contenders: opened by the first setup, closed by the last teardown. */
export function sharedOurLimiter(ctx: SuiteContext, keyPrefix: string) {
  let users = 0;
  let close: (() => Promise<void>) | undefined;
  const shared = { limiter: undefined as unknown as RateLimiterLike, setup: async () => {}, teardown: async () => {} };
  shared.setup = async () => {
    if (users++ > 0) return;
    const app = await createOurContext(ctx.redis.url, keyPrefix);
    shared.limiter = resolveService<RateLimiterLike>(app, 'RateLimiterService');
    close = () => app.close();
  };
  shared.teardown = async () => {
    if (--users === 0) await close?.();
  };
  return shared;
}

/** The fixed-window decision in an application created with the OpenTelemetry metrics SDK registered and exporting. */
function metricsSdkContender(ctx: SuiteContext): Contender {
  const missing = missingExports('RateLimiterService');
  if (missing) return unavailableContender('ours-fixed-window-otel', 'consume() fixed-window (OpenTelemetry SDK)', missing);
  let limiter: RateLimiterLike;
  let close: (() => Promise<void>) | undefined;
  const nextKey = clientKeys('otel:');
  return libraryContender({
    id: 'ours-fixed-window-otel',
    label: 'RateLimiterService.consume() fixed-window (OpenTelemetry SDK)',
    concurrency: RL_CONCURRENCY,
    setup: async () => {
      const app = await createOurContextWithMetricsSdk(ctx.redis.url, 'bench-rl-otel');
      limiter = resolveService<RateLimiterLike>(app, 'RateLimiterService');
      close = () => app.close();
    },
    teardown: async () => close?.(),
    op: async () => expectAllowed(await limiter.consume(nextKey(), POLICIES['fixed-window'])),
  });
}

function ourContenders(ctx: SuiteContext): Contender[] {
  const missing = missingExports('RateLimiterService');
  if (missing) return Object.keys(POLICIES).map((name) => unavailableContender(`ours-${name}`, `consume() ${name}`, missing));
  const shared = sharedOurLimiter(ctx, 'bench-rl');
  return Object.entries(POLICIES).map(([name, policy]) => {
    const nextKey = clientKeys(`${name}:`);
    return libraryContender({
      id: `ours-${name}`,
      label: `RateLimiterService.consume() ${name}`,
      concurrency: RL_CONCURRENCY,
      setup: shared.setup,
      teardown: shared.teardown,
      op: async () => expectAllowed(await shared.limiter.consume(nextKey(), policy)),
    });
  });
}

/** What ThrottlerGuard calls once per named throttler, answered by our storage adapter. */
interface ThrottlerStorageLike {
  increment(key: string, ttl: number, limit: number, blockDuration: number, name: string): Promise<{ isBlocked: boolean }>;
}

/** RedisPatternsThrottlerStorage.increment(), the one-line migration route, against the storage it replaces. */
function throttlerStorageContender(ctx: SuiteContext): Contender {
  const missing = missingExports('RateLimiterService', 'RedisPatternsThrottlerStorage');
  if (missing) return unavailableContender('ours-throttler-storage', 'RedisPatternsThrottlerStorage.increment()', missing);
  const shared = sharedOurLimiter(ctx, 'bench-rl');
  const nextKey = clientKeys('thr:');
  let storage: ThrottlerStorageLike;
  return libraryContender({
    id: 'ours-throttler-storage',
    label: 'RedisPatternsThrottlerStorage.increment() (our storage under ThrottlerGuard)',
    concurrency: RL_CONCURRENCY,
    setup: async () => {
      await shared.setup();
      const Storage = libraryExport<new (limiter: RateLimiterLike) => ThrottlerStorageLike>('RedisPatternsThrottlerStorage')!;
      storage = new Storage(shared.limiter);
    },
    teardown: shared.teardown,
    op: async () => {
      // As the guard calls it: the throttler's block duration defaults to its ttl.
      const record = await storage.increment(nextKey(), WINDOW_MS, LIMIT, WINDOW_MS, 'default');
      if (record.isBlocked) throw new Error('blocked during the allowed-path benchmark');
    },
  });
}

function peerContenders(ctx: SuiteContext): Contender[] {
  const clients: Redis[] = [];
  const client = () => {
    const redis = new Redis({ port: ctx.redis.port, host: '127.0.0.1' });
    clients.push(redis);
    return redis;
  };
  let rlf: RateLimiterRedis;
  let throttler: ThrottlerStorageRedisService;
  let raw: Redis & { benchFixedWindow?: (key: string, windowMs: number) => Promise<[number, number]> };
  const rlfKey = clientKeys('');
  const throttlerKey = clientKeys('throttle:');
  const rawKey = clientKeys('raw:');
  return [
    libraryContender({
      id: 'rlf',
      label: 'rate-limiter-flexible RateLimiterRedis.consume()',
      concurrency: RL_CONCURRENCY,
      setup: async () => {
        rlf = new RateLimiterRedis({ storeClient: client(), points: LIMIT, duration: WINDOW_MS / 1000, keyPrefix: 'rlf' });
      },
      op: () => rlf.consume(rlfKey()),
      teardown: async () => undefined,
    }),
    libraryContender({
      id: 'throttler',
      label: '@nest-lab/throttler-storage-redis increment()',
      concurrency: RL_CONCURRENCY,
      setup: async () => {
        throttler = new ThrottlerStorageRedisService(client());
      },
      op: async () => {
        const record = await throttler.increment(throttlerKey(), WINDOW_MS, LIMIT, 0, 'default');
        if (record.isBlocked) throw new Error('blocked during the allowed-path benchmark');
      },
    }),
    libraryContender({
      id: 'raw',
      label: 'hand-written one-EVALSHA fixed window',
      concurrency: RL_CONCURRENCY,
      setup: async () => {
        raw = client();
        raw.defineCommand('benchFixedWindow', { numberOfKeys: 1, lua: FIXED_WINDOW_LUA });
      },
      op: async () => {
        const [count] = await raw.benchFixedWindow!(rawKey(), WINDOW_MS);
        if (count > LIMIT) throw new Error('denied during the allowed-path benchmark');
      },
      teardown: async () => {
        for (const redis of clients.splice(0)) redis.disconnect();
      },
    }),
  ];
}

/**
 * Rate limiting, one policy: consume() for every algorithm against rate-limiter-flexible's RateLimiterRedis,
 * @nest-lab/throttler-storage-redis's increment() (what ThrottlerGuard calls once per named throttler) and a
 * hand-written one-EVALSHA fixed window, all on the allowed path.
 */
export function rateLimitGroup(ctx: SuiteContext): BenchGroup {
  const ratios: RatioSpec[] = Object.keys(POLICIES).flatMap((name) => [
    { label: `${name} / rate-limiter-flexible`, numerator: `ours-${name}`, denominator: 'rlf', target: 1.5 },
    { label: `${name} / throttler storage`, numerator: `ours-${name}`, denominator: 'throttler', target: 1.5 },
  ]);
  ratios.push({ label: 'fixed-window / hand-written EVALSHA', numerator: 'ours-fixed-window', denominator: 'raw' });
  ratios.push({
    label: 'RedisPatternsThrottlerStorage / @nest-lab/throttler-storage-redis',
    numerator: 'ours-throttler-storage',
    denominator: 'throttler',
    target: 1.0,
  });
  ratios.push({
    label: 'fixed-window with the OpenTelemetry SDK / without',
    numerator: 'ours-fixed-window-otel',
    denominator: 'ours-fixed-window',
    target: 0.95,
  });
  return {
    id: 'rate-limit',
    title: 'Rate limit: one policy',
    unit: 'one allowed decision',
    load: `${RL_CONCURRENCY} concurrent callers over ${KEY_SPACE.toLocaleString('en-US')} client keys, limit ${LIMIT} per ${WINDOW_MS / 1000} s, closed loop`,
    probe: true,
    contenders: [...ourContenders(ctx), metricsSdkContender(ctx), throttlerStorageContender(ctx), ...peerContenders(ctx)],
    ratios,
  };
}
