import type { CompiledPolicy } from '../compile-policies';

/** One entry of the in-memory store; `expiresAt` plays the part of the Redis TTL. */
export interface MemoryEntry {
  expiresAt: number;
  count: number;
  /** Sliding log: hit times, oldest first. Sliding counter: [windowIndex, current, previous]. */
  list?: number[];
  /** Token bucket: time of `count` (tokens). GCRA: unused (`count` is the TAT). */
  at?: number;
}

/** The outcome of checking one policy, as in the Lua scripts: nothing is written until `commit` runs. */
export interface MemoryCheck {
  ok: boolean;
  available: number;
  resetNow: number;
  resetAfter: number;
  retry: number;
  commit: () => MemoryEntry;
}

type Check = (entry: MemoryEntry | undefined, policy: CompiledPolicy, cost: number, now: number) => MemoryCheck;

// These mirror scripts/*.lua.ts one to one, on the process clock: the fallback enforces the same policy per instance.
const fixedWindow: Check = (entry, { a: limit, b: window }, cost, now) => {
  const count = entry?.count ?? 0;
  const ttl = entry ? entry.expiresAt - now : 0;
  const ok = cost <= limit - count;
  return {
    ok,
    available: limit - count,
    resetNow: ttl,
    resetAfter: entry ? ttl : window,
    retry: ok ? 0 : entry ? ttl : window,
    commit: () => (entry ? { ...entry, count: count + cost } : { count: cost, expiresAt: now + window }),
  };
};

const slidingLog: Check = (entry, { a: limit, b: window }, cost, now) => {
  const hits = (entry?.list ?? []).filter((t) => t > now - window);
  const ok = cost <= limit - hits.length;
  let retry = 0;
  if (!ok) retry = cost > limit ? window : Math.max(hits[hits.length + cost - limit - 1] + window - now, 1);
  return {
    ok,
    available: limit - hits.length,
    resetNow: hits.length ? hits[hits.length - 1] + window - now : 0,
    resetAfter: window,
    retry,
    commit: () => ({ count: 0, list: hits.concat(new Array<number>(cost).fill(now)), expiresAt: now + window }),
  };
};

const slidingWindowCounter: Check = (entry, { a: limit, b: window }, cost, now) => {
  const index = Math.floor(now / window);
  const elapsed = now - index * window;
  const [stored, c, p] = entry?.list ?? [NaN, 0, 0];
  const current = stored === index ? c : 0;
  const previous = stored === index ? p : stored === index - 1 ? c : 0;
  const available = limit - (previous * (1 - elapsed / window) + current);
  const ok = cost <= available + 1e-9;
  let retry = 0;
  if (!ok) {
    if (cost > limit) retry = 2 * window;
    else if (previous > 0 && current + cost <= limit) retry = window * (1 - (limit - current - cost) / previous) - elapsed;
    else retry = window - elapsed + (current > 0 ? Math.max(window * (1 - (limit - cost) / current), 0) : 0);
    retry = Math.max(retry, 1);
  }
  return {
    ok,
    available,
    resetNow: current > 0 ? 2 * window - elapsed : previous > 0 ? window - elapsed : 0,
    resetAfter: 2 * window - elapsed,
    retry,
    commit: () => ({ count: 0, list: [index, current + cost, previous], expiresAt: now + 2 * window - elapsed }),
  };
};

const tokenBucket: Check = (entry, { a: capacity, b: rate }, cost, now) => {
  const perMs = rate / 1000;
  const tokens = entry ? Math.min(capacity, entry.count + Math.max(now - (entry.at ?? now), 0) * perMs) : capacity;
  const ok = cost <= tokens + 1e-9;
  const resetAfter = (capacity - tokens + cost) / perMs;
  return {
    ok,
    available: tokens,
    resetNow: (capacity - tokens) / perMs,
    resetAfter,
    retry: ok ? 0 : cost > capacity ? capacity / perMs : Math.max((cost - tokens) / perMs, 1),
    commit: () => ({ count: Math.max(tokens - cost, 0), at: now, expiresAt: now + Math.max(Math.ceil(resetAfter), 1) }),
  };
};

/** Checks by algorithm code (see ALGORITHM_CODES). */
// GCRA (code 5) is decided in its token-bucket form, as in Redis (see compile-policies.ts).
export const MEMORY_CHECKS: readonly Check[] = [fixedWindow, fixedWindow, slidingLog, slidingWindowCounter, tokenBucket, tokenBucket];

/** The state after a refund or penalty (undefined: no entry, as a missing key), and what the adjust script replies. */
export interface MemoryAdjustment {
  entry: MemoryEntry | undefined;
  remaining: number;
  reset: number;
}

type Adjust = (entry: MemoryEntry | undefined, policy: CompiledPolicy, delta: number, now: number) => MemoryAdjustment;

// These mirror the *_adjust functions of scripts/*.lua.ts.
const fixedWindowAdjust: Adjust = (entry, { a: limit, b: window }, delta, now) => {
  const count = entry?.count ?? 0;
  const target = Math.min(Math.max(count + delta, 0), limit);
  if (!entry)
    return target > 0
      ? { entry: { count: target, expiresAt: now + window }, remaining: limit - target, reset: window }
      : { entry, remaining: limit, reset: 0 };
  return { entry: { ...entry, count: target }, remaining: limit - target, reset: entry.expiresAt - now };
};

const slidingLogAdjust: Adjust = (entry, { a: limit, b: window }, delta, now) => {
  let hits = (entry?.list ?? []).filter((t) => t > now - window);
  if (delta < 0) hits = hits.slice(0, Math.max(hits.length + delta, 0));
  else if (delta > 0) hits = hits.concat(new Array<number>(Math.max(Math.min(delta, limit - hits.length), 0)).fill(now));
  if (hits.length === 0) return { entry: undefined, remaining: limit, reset: 0 };
  const reset = Math.max(hits[hits.length - 1] + window - now, 0);
  return { entry: { count: 0, list: hits, expiresAt: now + window }, remaining: limit - hits.length, reset };
};

const slidingWindowCounterAdjust: Adjust = (entry, { a: limit, b: window }, delta, now) => {
  const index = Math.floor(now / window);
  const elapsed = now - index * window;
  const [stored, c, p] = entry?.list ?? [NaN, 0, 0];
  const current = stored === index ? c : 0;
  const previous = stored === index ? p : stored === index - 1 ? c : 0;
  const weight = previous * (1 - elapsed / window);
  const target = delta < 0 ? Math.max(current + delta, 0) : Math.max(current, Math.min(current + delta, Math.floor(limit - weight)));
  const reset = target > 0 ? 2 * window - elapsed : previous > 0 ? window - elapsed : 0;
  const next = entry || target > 0 ? { count: 0, list: [index, target, previous], expiresAt: now + 2 * window - elapsed } : undefined;
  return { entry: next, remaining: limit - (weight + target), reset };
};

const tokenBucketAdjust: Adjust = (entry, { a: capacity, b: rate }, delta, now) => {
  const perMs = rate / 1000;
  const tokens = entry ? Math.min(capacity, entry.count + Math.max(now - (entry.at ?? now), 0) * perMs) : capacity;
  const target = Math.min(Math.max(tokens - delta, 0), capacity);
  if (target >= capacity) return { entry: undefined, remaining: capacity, reset: 0 };
  const reset = (capacity - target) / perMs;
  return { entry: { count: target, at: now, expiresAt: now + Math.max(Math.ceil(reset), 1) }, remaining: target, reset };
};

/** Refunds and penalties by algorithm code (see ALGORITHM_CODES); GCRA in its token-bucket form. */
export const MEMORY_ADJUSTS: readonly Adjust[] = [
  fixedWindowAdjust,
  fixedWindowAdjust,
  slidingLogAdjust,
  slidingWindowCounterAdjust,
  tokenBucketAdjust,
  tokenBucketAdjust,
];
