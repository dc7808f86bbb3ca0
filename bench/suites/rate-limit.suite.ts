import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import { RedisThrottlerStorage } from '@nestjs-redis/throttler-storage';
import type Redis from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { createClient } from 'redis';
import type { BenchGroup, Contender, RatioSpec } from '../lib/contender';
import { libraryContender, unavailableContender } from '../lib/contenders';
import { createOurContextWithMetricsSdk } from '../lib/metrics-sdk';
import { createOurContext, libraryExport, missingExports, resolveService } from '../lib/our-library';
import { HEADLINE_CONCURRENCY, peerTargetAt } from '../lib/sweep';
import { apSuffix, peerIoredis } from '../lib/peer-clients';
import type { SuiteContext } from './suite-context';

/** The part of RateLimiterService the benchmark calls. */
export interface RateLimiterLike {
  consume(key: string, policy: object | readonly object[]): Promise<{ allowed: boolean }>;
}

const WINDOW_MS = 60_000;
const LIMIT = 100;
// Many clients, each seen a few times per run: every decision is an "allowed" one on a realistic key space
// (a sliding log with one hot key and a huge limit would measure a growing sorted set instead).
const KEY_SPACE = 100_000;

/** Our policies, one per algorithm, all allowing LIMIT per WINDOW_MS. */
export const POLICIES: Record<string, object> = {
  'fixed-window': { algorithm: 'fixed-window', limit: LIMIT, windowMs: WINDOW_MS },
  'sliding-log': { algorithm: 'sliding-log', limit: LIMIT, windowMs: WINDOW_MS },
  'sliding-window-counter': { algorithm: 'sliding-window-counter', limit: LIMIT, windowMs: WINDOW_MS },
  'token-bucket': { algorithm: 'token-bucket', capacity: LIMIT, refillPerSecond: LIMIT / (WINDOW_MS / 1000) },
  gcra: { algorithm: 'gcra', limit: LIMIT, periodMs: WINDOW_MS },
};

// One round trip, like ours: INCR, set the expiry on the first hit, return the count and the remaining TTL.
export const FIXED_WINDOW_LUA = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return { count, redis.call('PTTL', KEYS[1]) }`;

// The reference write-ups' own sliding log (docs: "Sliding Window (Lua — Atomic)"), verbatim: the baseline
// for our sliding log, which no peer library offers. The caller passes its clock, as the write-up does.
const REFERENCE_SLIDING_LOG_LUA = `
local key = KEYS[1]
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])

redis.call('ZREMRANGEBYSCORE', key, 0, now - window)
local count = redis.call('ZCARD', key)

if count < limit then
    local seq_key = key .. ':seq'
    local seq = redis.call('INCR', seq_key)
    redis.call('EXPIRE', seq_key, math.ceil(window / 1000))
    redis.call('ZADD', key, now, now .. '-' .. seq)
    redis.call('EXPIRE', key, math.ceil(window / 1000))
    return 1
end
return 0`;

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
    concurrency: ctx.concurrency,
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
      concurrency: ctx.concurrency,
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
    concurrency: ctx.concurrency,
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

function rlfContender(ctx: SuiteContext, autoPipelining: boolean): Contender {
  const client = peerIoredis(ctx, autoPipelining);
  const nextKey = clientKeys(autoPipelining ? 'ap:' : '');
  let rlf: RateLimiterRedis;
  return libraryContender({
    id: autoPipelining ? 'rlf-ap' : 'rlf',
    label: `rate-limiter-flexible RateLimiterRedis.consume()${apSuffix(autoPipelining)}`,
    concurrency: ctx.concurrency,
    setup: async () => {
      client.open();
      rlf = new RateLimiterRedis({ storeClient: client.get(), points: LIMIT, duration: WINDOW_MS / 1000, keyPrefix: 'rlf' });
    },
    op: () => rlf.consume(nextKey()),
    teardown: async () => client.close(),
  });
}

function nestLabThrottlerContender(ctx: SuiteContext, autoPipelining: boolean): Contender {
  const client = peerIoredis(ctx, autoPipelining);
  const nextKey = clientKeys(autoPipelining ? 'throttle-ap:' : 'throttle:');
  let throttler: ThrottlerStorageRedisService;
  return libraryContender({
    id: autoPipelining ? 'throttler-ap' : 'throttler',
    label: `@nest-lab/throttler-storage-redis increment()${apSuffix(autoPipelining)}`,
    concurrency: ctx.concurrency,
    setup: async () => {
      client.open();
      throttler = new ThrottlerStorageRedisService(client.get());
    },
    op: async () => {
      const record = await throttler.increment(nextKey(), WINDOW_MS, LIMIT, 0, 'default');
      if (record.isBlocked) throw new Error('blocked during the allowed-path benchmark');
    },
    teardown: async () => client.close(),
  });
}

/** A named throttler of @nestjs/throttler: name, window (ms) and limit. */
export interface ThrottlerName {
  name: string;
  ttl: number;
  limit: number;
}

/** @nestjs-redis/throttler-storage on node-redis, which pipelines every concurrent command by design (its best). */
export function nodeRedisThrottlerContender(ctx: SuiteContext, id: string, keyPrefix: string, names: readonly ThrottlerName[]): Contender {
  const client = createClient({ url: ctx.redis.url });
  const nextKey = clientKeys(keyPrefix);
  let storage: RedisThrottlerStorage;
  return libraryContender({
    id,
    label:
      names.length === 1
        ? '@nestjs-redis/throttler-storage increment() (node-redis)'
        : `three named throttlers, @nestjs-redis/throttler-storage (${names.length} sequential increment() calls, node-redis)`,
    concurrency: ctx.concurrency,
    setup: async () => {
      await client.connect();
      storage = new RedisThrottlerStorage(client as never);
    },
    op: async () => {
      const tracker = nextKey();
      for (const t of names) {
        const record = await storage.increment(names.length === 1 ? tracker : `${tracker}:${t.name}`, t.ttl, t.limit, 0, t.name);
        if (record.isBlocked) throw new Error('blocked during the allowed-path benchmark');
      }
    },
    teardown: async () => void (await client.close()),
  });
}

function handWrittenContenders(ctx: SuiteContext): Contender[] {
  type Scripted = Redis & {
    benchFixedWindow?: (key: string, windowMs: number) => Promise<[number, number]>;
    benchReferenceSlidingLog?: (key: string, now: number, windowMs: number, limit: number) => Promise<number>;
  };
  const client = peerIoredis(ctx, true);
  const rawKey = clientKeys('raw:');
  const logKey = clientKeys('ref-log:');
  let users = 0;
  const setup = async () => {
    if (users++ > 0) return;
    client.open();
    client.get().defineCommand('benchFixedWindow', { numberOfKeys: 1, lua: FIXED_WINDOW_LUA });
    client.get().defineCommand('benchReferenceSlidingLog', { numberOfKeys: 1, lua: REFERENCE_SLIDING_LOG_LUA });
  };
  const teardown = async () => {
    if (--users === 0) client.close();
  };
  return [
    libraryContender({
      id: 'raw',
      label: 'hand-written one-EVALSHA fixed window (auto-pipelining)',
      concurrency: ctx.concurrency,
      setup,
      teardown,
      op: async () => {
        const [count] = await (client.get() as Scripted).benchFixedWindow!(rawKey(), WINDOW_MS);
        if (count > LIMIT) throw new Error('denied during the allowed-path benchmark');
      },
    }),
    libraryContender({
      id: 'reference-log',
      label: "the reference write-up's sliding-log Lua, by hand (auto-pipelining)",
      concurrency: ctx.concurrency,
      setup,
      teardown,
      op: async () => {
        const allowed = await (client.get() as Scripted).benchReferenceSlidingLog!(logKey(), Date.now(), WINDOW_MS, LIMIT);
        if (allowed !== 1) throw new Error('denied during the allowed-path benchmark');
      },
    }),
  ];
}

function peerContenders(ctx: SuiteContext): Contender[] {
  return [
    rlfContender(ctx, false),
    rlfContender(ctx, true),
    nestLabThrottlerContender(ctx, false),
    nestLabThrottlerContender(ctx, true),
    nodeRedisThrottlerContender(ctx, 'nestjs-redis-throttler', 'nr-throttle:', [{ name: 'default', ttl: WINDOW_MS, limit: LIMIT }]),
    ...handWrittenContenders(ctx),
  ];
}

/** Every peer's rows: the ratio targets are taken against the better of them (the peer at its best). */
const RLF = ['rlf', 'rlf-ap'] as const;
const THROTTLER_STORAGES = ['throttler', 'throttler-ap', 'nestjs-redis-throttler'] as const;

/**
 * Rate limiting, one policy: consume() for every algorithm against rate-limiter-flexible's RateLimiterRedis and the
 * two Redis storages of @nestjs/throttler (@nest-lab/throttler-storage-redis on ioredis, @nestjs-redis/throttler-storage
 * on node-redis; `increment()` is what ThrottlerGuard calls once per named throttler), each ioredis peer with and
 * without auto-pipelining, plus hand-written scripts, all on the allowed path.
 */
export function rateLimitGroup(ctx: SuiteContext): BenchGroup {
  const c = ctx.concurrency;
  const counters = ['fixed-window', 'sliding-window-counter', 'token-bucket', 'gcra'];
  const ratios: RatioSpec[] = counters.flatMap((name) => [
    { label: `${name} / rate-limiter-flexible (better row)`, numerator: `ours-${name}`, denominator: RLF, target: peerTargetAt(c, 1.5) },
    {
      label: `${name} / throttler storage (best row)`,
      numerator: `ours-${name}`,
      denominator: THROTTLER_STORAGES,
      target: peerTargetAt(c, 1.5),
    },
  ]);
  ratios.push(
    {
      label: "sliding-log / the reference write-up's script",
      numerator: 'ours-sliding-log',
      denominator: 'reference-log',
      target: peerTargetAt(c, 1.5),
    },
    {
      label: 'sliding-log / rate-limiter-flexible (better row)',
      numerator: 'ours-sliding-log',
      denominator: RLF,
      target: peerTargetAt(c, 1.0),
    },
    { label: 'fixed-window / hand-written EVALSHA', numerator: 'ours-fixed-window', denominator: 'raw' },
    {
      label: 'RedisPatternsThrottlerStorage / the better @nest-lab/throttler-storage-redis row',
      numerator: 'ours-throttler-storage',
      denominator: ['throttler', 'throttler-ap'],
      target: peerTargetAt(c, 1.0),
    },
  );
  // Redis CPU per decision: what a shared Redis pays for each limiter, whatever the client does.
  for (const peer of [...RLF, ...THROTTLER_STORAGES]) {
    ratios.push({
      label: `Redis CPU per decision, fixed-window / ${peer}`,
      numerator: 'ours-fixed-window',
      denominator: peer,
      metric: 'redisCpuUsPerOp',
      atMost: c === HEADLINE_CONCURRENCY ? 0.5 : undefined,
    });
  }
  const contenders = [...ourContenders(ctx), throttlerStorageContender(ctx), ...peerContenders(ctx)];
  if (c === HEADLINE_CONCURRENCY) {
    contenders.push(metricsSdkContender(ctx));
    ratios.push({
      label: 'fixed-window with the OpenTelemetry SDK / without',
      numerator: 'ours-fixed-window-otel',
      denominator: 'ours-fixed-window',
      target: 0.95,
    });
  }
  return {
    id: 'rate-limit',
    title: 'Rate limit: one policy',
    unit: 'one allowed decision',
    load: `${c} concurrent caller${c === 1 ? '' : 's'} over ${KEY_SPACE.toLocaleString('en-US')} client keys, limit ${LIMIT} per ${WINDOW_MS / 1000} s, closed loop`,
    probe: true,
    contenders,
    ratios,
  };
}
