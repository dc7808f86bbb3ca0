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

const slidingWindow: Check = (entry, { a: limit, b: window }, cost, now) => {
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
    commit: () => ({ count: Math.max(tokens - cost, 0), at: now, expiresAt: now + Math.max(resetAfter, 1) }),
  };
};

/** Checks by algorithm code (see ALGORITHM_CODES). */
// GCRA (code 5) is decided in its token-bucket form, as in Redis (see compile-policies.ts).
export const MEMORY_CHECKS: readonly Check[] = [fixedWindow, fixedWindow, slidingWindow, slidingWindowCounter, tokenBucket, tokenBucket];
