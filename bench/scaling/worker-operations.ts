import type { INestApplicationContext } from '@nestjs/common';
import { closedLoop } from '../lib/closed-loop';
import { resolveService } from '../lib/our-library';
import { CACHE_TTL_S, CACHED_VALUE } from '../suites/payload';
import type { RateLimiterLike } from '../suites/rate-limit.suite';
import type { ScalingOperation, WorkerSpec } from './worker-protocol';

/** One call of an operation by caller `caller` of the closed loop; rejects when the call failed or was wrong. */
export type OperationCall = (caller: number) => Promise<void>;

interface CacheServiceLike {
  get<T>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown, options: { ttl: number }): Promise<unknown>;
}

/** Client ids each process decides for, visited in a fixed stride so neighbouring calls hit unrelated ids. */
const CLIENT_IDS = 100_000;
// Prime and not a factor of CLIENT_IDS: one cycle visits every id exactly once.
const STRIDE = 7_919;
/**
 * A fixed window, as in the rate-limit group, but longer than a whole benchmark run and with room for every call
 * of it. The script sets a key's expiry on its first hit only (one more command), and a process revisits its ids
 * more often the faster it runs: with the rate-limit group's 60 s window, the share of first hits, so the Redis
 * work per decision, changed with the number of processes. Every id is decided once before the first run instead
 * (see `touchEveryClient`), so every measured decision is a later hit in a live window.
 */
const POLICY = { algorithm: 'fixed-window', limit: 1_000, windowMs: 600_000 };
/** How long each process runs an operation before it reports ready, to compile its hot paths. */
const WARMUP_MS = 1_000;

/** Calls `call` `times` times from `concurrency` callers; failures are left to the measured runs to report. */
async function callRepeatedly(call: OperationCall, times: number, concurrency: number): Promise<void> {
  let issued = 0;
  const caller = async (c: number) => {
    while (issued++ < times) await call(c).catch(() => undefined);
  };
  await Promise.all(Array.from({ length: concurrency }, (_, c) => caller(c)));
}

/** An allowed fixed-window decision on the next of the process's client ids. */
async function rateLimitCall(app: INestApplicationContext, spec: WorkerSpec): Promise<OperationCall> {
  const limiter = resolveService<RateLimiterLike>(app, 'RateLimiterService');
  // The worker's index in the client id: processes decide for different clients, and on a cluster every id is its
  // own hash tag, so decisions spread over the slots (and the masters).
  let n = 0;
  const nextKey = () => `w${spec.index}:${(n = (n + STRIDE) % CLIENT_IDS)}`;
  const call: OperationCall = async () => {
    const decision = await limiter.consume(nextKey(), POLICY);
    if (!decision.allowed) throw new Error('denied during the allowed-path benchmark');
  };
  // Touches every id once (the first hits), which also warms the process up.
  await callRepeatedly(call, CLIENT_IDS, spec.concurrency);
  return call;
}

/** A cache hit on a ~0.5 KB JSON value, one key per caller (seeded here, before any run). */
async function cacheHitCall(app: INestApplicationContext, spec: WorkerSpec): Promise<OperationCall> {
  const cache = resolveService<CacheServiceLike>(app, 'CacheService');
  const keys = Array.from({ length: spec.concurrency }, (_, caller) => `w${spec.index}:user${caller}`);
  for (const key of keys) await cache.set(key, CACHED_VALUE, { ttl: CACHE_TTL_S });
  const call: OperationCall = async (caller) => {
    const value = await cache.get(keys[caller]);
    if (value === undefined || value === null) throw new Error('cache miss during the hit benchmark');
  };
  await closedLoop(call, spec.concurrency, WARMUP_MS);
  return call;
}

/**
 * The calls a worker runs, by operation, prepared once when the worker starts: keys seeded, and each process's
 * code warmed up by itself (the runner's warm-up of a row is split between up to four processes on two cores,
 * which left the first measured rounds of a freshly started process cold).
 */
export async function prepareOperations(app: INestApplicationContext, spec: WorkerSpec): Promise<Map<ScalingOperation, OperationCall>> {
  const calls = new Map<ScalingOperation, OperationCall>();
  for (const operation of spec.operations) {
    calls.set(operation, operation === 'rate-limit' ? await rateLimitCall(app, spec) : await cacheHitCall(app, spec));
  }
  return calls;
}
