import KeyvRedis from '@keyv/redis';
import { createCache, type Cache } from 'cache-manager';
import Redis from 'ioredis';
import { Keyv } from 'keyv';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import Redlock from 'redlock';
import { closedLoop } from '../lib/closed-loop';
import type { BenchGroup, Contender, RatioSpec } from '../lib/contender';
import { unavailableContender } from '../lib/contenders';
import { OPEN_LOOP_DEFAULTS, openLoop } from '../lib/open-loop';
import { createOurContext, missingExports, resolveService } from '../lib/our-library';
import { CACHE_TTL_S, CACHED_VALUE } from './payload';
import { clientKeys, expectAllowed, POLICIES, sharedOurLimiter } from './rate-limit.suite';
import type { SuiteContext } from './suite-context';

interface CacheServiceLike {
  get<T>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown, options: { ttl: number }): Promise<unknown>;
}
interface LockServiceLike {
  acquire(resource: string, options: { ttlMs: number }): Promise<{ release(): Promise<unknown> }>;
}

/** Arrival rates, in percent of the peer's closed-loop capacity measured in the same run. */
const RATE_PERCENTS = [50, 90] as const;
const CAPACITY_CALLERS = 64;
// The peer's first calls run cold (JIT, connection, script loading); a short closed loop before the measured one
// keeps that out of the capacity the rates are derived from.
const CAPACITY_WARMUP_MS = { full: 500, quick: 100 };
const CAPACITY_MS = { full: 1500, quick: 300 };
// Cached keys read in turn: enough that two reads in flight at once are almost never for the same key.
const CACHE_KEYS = Array.from({ length: 1024 }, (_, i) => `user${i}`);
// Lock resources used in turn: far more than the open loop's in-flight bound, so no acquire meets a held lock.
const LOCK_RESOURCES = 100_000;
const LOCK_TTL_MS = 10_000;
const FIXED_WINDOW = POLICIES['fixed-window'] as { limit: number; windowMs: number };

/**
 * One side of an operation (ours or the peer): its clients are opened by the first contender that needs them and
 * closed by the last one, so the 50% and 90% rows of a side share one application context or client.
 */
interface Side {
  who: 'ours' | 'peer';
  label: string;
  unavailable?: string;
  op(): Promise<unknown>;
  acquire(): Promise<void>;
  release(): Promise<void>;
}

/** An operation measured open-loop: ours against the peer at its best, at rates derived from the peer's capacity. */
interface Operation {
  id: string;
  name: string;
  ours: Side;
  peer: Side;
}

/** A side whose resources `open` creates and `close` frees, reference-counted over the contenders using it. */
function side(spec: Omit<Side, 'acquire' | 'release'> & { open(): Promise<void>; close(): Promise<void> }): Side {
  let users = 0;
  return {
    who: spec.who,
    label: spec.label,
    unavailable: spec.unavailable,
    op: spec.op,
    acquire: async () => {
      if (users++ > 0) return;
      try {
        await spec.open();
      } catch (error) {
        users--;
        await spec.close().catch(() => undefined);
        throw error;
      }
    },
    release: async () => {
      if (--users === 0) await spec.close();
    },
  };
}

/** Throws when a "hit" returned nothing, so a broken contender shows errors instead of fast misses. */
function expectHit(value: unknown): void {
  if (value === undefined || value === null) throw new Error('cache miss during the hit benchmark');
}

/** A function returning the items of `items` in turn. */
function cycle<T>(items: readonly T[]): () => T {
  let n = -1;
  return () => items[(n = (n + 1) % items.length)];
}

function cacheOperation(ctx: SuiteContext): Operation {
  let ours: CacheServiceLike | undefined;
  let closeOurs: (() => Promise<void>) | undefined;
  let peer: Cache | undefined;
  const ourKey = cycle(CACHE_KEYS);
  const peerKey = cycle(CACHE_KEYS);
  return {
    id: 'cache',
    name: 'cache hit',
    ours: side({
      who: 'ours',
      label: 'CacheService.get',
      unavailable: missingExports('CacheService'),
      open: async () => {
        const app = await createOurContext(ctx.redis.url, 'bench-latency-cache');
        closeOurs = () => app.close();
        ours = resolveService<CacheServiceLike>(app, 'CacheService');
        await Promise.all(CACHE_KEYS.map((key) => ours!.set(key, CACHED_VALUE, { ttl: CACHE_TTL_S })));
      },
      close: async () => closeOurs?.(),
      op: async () => expectHit(await ours!.get(ourKey())),
    }),
    peer: side({
      who: 'peer',
      label: 'cache-manager 7 + @keyv/redis get',
      open: async () => {
        peer = createCache({ stores: [new Keyv({ store: new KeyvRedis(ctx.redis.url), namespace: 'bench-latency-cm' })] });
        await Promise.all(CACHE_KEYS.map((key) => peer!.set(key, CACHED_VALUE, CACHE_TTL_S * 1000)));
      },
      close: async () => void (await peer?.disconnect()),
      op: async () => expectHit(await peer!.get(peerKey())),
    }),
  };
}

function rateLimitOperation(ctx: SuiteContext): Operation {
  const ours = sharedOurLimiter(ctx, 'bench-latency-rl');
  const ourKey = clientKeys('latency:');
  const peerKey = clientKeys('');
  let client: Redis | undefined;
  let peer: RateLimiterRedis | undefined;
  return {
    id: 'rate-limit',
    name: 'rate-limit decision',
    ours: side({
      who: 'ours',
      label: 'RateLimiterService.consume() fixed-window',
      unavailable: missingExports('RateLimiterService'),
      open: () => ours.setup(),
      close: () => ours.teardown(),
      op: async () => expectAllowed(await ours.limiter.consume(ourKey(), FIXED_WINDOW)),
    }),
    peer: side({
      who: 'peer',
      label: 'rate-limiter-flexible RateLimiterRedis.consume() (ioredis auto-pipelining)',
      open: async () => {
        client = new Redis({ port: ctx.redis.port, host: '127.0.0.1', enableAutoPipelining: true });
        peer = new RateLimiterRedis({
          storeClient: client,
          points: FIXED_WINDOW.limit,
          duration: FIXED_WINDOW.windowMs / 1000,
          keyPrefix: 'rlf-latency',
        });
      },
      close: async () => void client?.disconnect(),
      op: () => peer!.consume(peerKey()),
    }),
  };
}

function lockOperation(ctx: SuiteContext): Operation {
  const resources = Array.from({ length: LOCK_RESOURCES }, (_, i) => `res${i}`);
  const ourResource = cycle(resources);
  const peerResource = cycle(resources);
  let ours: LockServiceLike | undefined;
  let closeOurs: (() => Promise<void>) | undefined;
  let client: Redis | undefined;
  let peer: Redlock | undefined;
  return {
    id: 'lock',
    name: 'lock acquire + release',
    ours: side({
      who: 'ours',
      label: 'LockService acquire + release',
      unavailable: missingExports('LockService'),
      open: async () => {
        const app = await createOurContext(ctx.redis.url, 'bench-latency-lock');
        closeOurs = () => app.close();
        ours = resolveService<LockServiceLike>(app, 'LockService');
      },
      close: async () => closeOurs?.(),
      op: async () => (await ours!.acquire(ourResource(), { ttlMs: LOCK_TTL_MS })).release(),
    }),
    peer: side({
      who: 'peer',
      label: 'redlock 5 acquire + release (ioredis auto-pipelining)',
      open: async () => {
        client = new Redis({ port: ctx.redis.port, host: '127.0.0.1', enableAutoPipelining: true });
        peer = new Redlock([client], { retryCount: 0 });
      },
      close: async () => void client?.disconnect(),
      op: async () => (await peer!.acquire([`latency-r5:${peerResource()}`], LOCK_TTL_MS)).release(),
    }),
  };
}

const contenderId = (operation: Operation, who: Side['who'], percent: number) => `${operation.id}-${who}@${percent}`;

/**
 * Open-loop latency: a cache hit, a rate-limit decision and an uncontended lock acquire + release, each ours against
 * the peer at its best, with arrivals at a fixed rate of 50% and 90% of the peer's closed-loop capacity measured in
 * this run. Latency runs from each arrival's intended start, so what a service with a latency objective sees under
 * that load is reported, stalls included. The capacity is measured by the first contender's setup; the labels and
 * the group's load description are completed then.
 */
export function latencyGroup(ctx: SuiteContext): BenchGroup {
  const operations = [cacheOperation(ctx), rateLimitOperation(ctx), lockOperation(ctx)];
  const warmupMs = ctx.quick ? CAPACITY_WARMUP_MS.quick : CAPACITY_WARMUP_MS.full;
  const capacityMs = ctx.quick ? CAPACITY_MS.quick : CAPACITY_MS.full;
  const capacity = new Map<string, number>();
  const arrivalProcess =
    'Open loop: arrivals at a fixed rate (a timer starts, every ~1 ms, each arrival whose intended time has passed), ' +
    'whether or not earlier calls have finished; latency from the intended start; ' +
    `at most ${OPEN_LOOP_DEFAULTS.maxInFlight.toLocaleString('en-US')} in flight (more are dropped: the contender fell behind the rate, which its row reports and which leaves that round out of the ratios), ` +
    `calls unfinished ${OPEN_LOOP_DEFAULTS.drainDeadlineMs / 1000} s after the last arrival fell behind too`;
  const capacityMethod =
    `rates are 50% and 90% of the peer's capacity measured in this run at setup: a closed loop of ${CAPACITY_CALLERS} ` +
    `callers for ${capacityMs / 1000} s after a ${warmupMs / 1000} s warm-up`;

  // The arrival rate of a contender, a whole number per second so that the label shows the rate that runs.
  const rateOf = (operation: Operation, percent: number) => {
    const measured = capacity.get(operation.id);
    return measured === undefined ? undefined : Math.round((measured * percent) / 100);
  };
  const label = (operation: Operation, who: Side['who'], percent: number) => {
    const rate = rateOf(operation, percent);
    return `${operation.name}: ${operation[who].label} @ ${percent}% ${rate === undefined ? 'of peer capacity' : `(${rate.toLocaleString('en-US')}/s)`}`;
  };

  const group: BenchGroup = {
    id: 'latency',
    title: 'Open-loop latency at 50% and 90% of the peer capacity',
    unit: 'a cache hit, a rate-limit decision, or a lock acquire + release, arriving on schedule',
    load: `${arrivalProcess}; ${capacityMethod}`,
    contenders: [],
    ratios: [],
  };

  // Each contender's label, rebuilt once the capacity is known.
  const relabel = new Map<Contender, () => string>();
  let measuring: Promise<void> | undefined;
  const measureCapacities = async () => {
    // Only the operations whose contenders are still in the group (a `--contenders` filter may have removed some).
    const present = new Set(group.contenders.map((c) => c.id));
    const wanted = operations.filter((o) =>
      RATE_PERCENTS.some((p) => present.has(contenderId(o, 'ours', p)) || present.has(contenderId(o, 'peer', p))),
    );
    for (const operation of wanted) {
      const peer = operation.peer;
      await peer.acquire();
      try {
        await closedLoop(() => peer.op(), CAPACITY_CALLERS, warmupMs);
        const run = await closedLoop(() => peer.op(), CAPACITY_CALLERS, capacityMs);
        if (run.errors > 0) throw new Error(`capacity of ${peer.label}: ${run.errors} errors in the closed loop`);
        capacity.set(operation.id, (run.ops * 1000) / run.elapsedMs);
      } finally {
        await peer.release();
      }
    }
    for (const [contender, labelOf] of relabel) contender.label = labelOf();
    const measured = wanted.map((o) => `${o.peer.label}: ${Math.round(capacity.get(o.id)!).toLocaleString('en-US')}/s`);
    group.load = `${arrivalProcess}; ${capacityMethod} (${measured.join('; ')})`;
  };

  const contender = (operation: Operation, who: Side['who'], percent: number): Contender => {
    const s = operation[who];
    const id = contenderId(operation, who, percent);
    if (s.unavailable) return unavailableContender(id, label(operation, who, percent), s.unavailable);
    const created: Contender = {
      id,
      label: label(operation, who, percent),
      setup: async () => {
        await (measuring ??= measureCapacities());
        await s.acquire();
      },
      run: (durationMs) => openLoop(() => s.op(), rateOf(operation, percent)!, durationMs),
      teardown: () => s.release(),
    };
    relabel.set(created, () => label(operation, who, percent));
    return created;
  };

  for (const operation of operations) {
    for (const percent of RATE_PERCENTS) {
      group.contenders.push(contender(operation, 'ours', percent), contender(operation, 'peer', percent));
      const pair = { numerator: contenderId(operation, 'ours', percent), denominator: contenderId(operation, 'peer', percent) };
      const ratios: RatioSpec[] = [
        { label: `${operation.name} @ ${percent}%: p99 ours / ${operation.peer.label}`, ...pair, metric: 'p99Ms' },
        { label: `${operation.name} @ ${percent}%: p99.9 ours / ${operation.peer.label}`, ...pair, metric: 'p999Ms' },
      ];
      group.ratios.push(...ratios);
    }
  }
  return group;
}
