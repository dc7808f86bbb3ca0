import type { DecodedEntry } from '../serialization/entry-envelope';

/**
 * Where a value came from: the cache (fresh), the loader, or the cache past its fresh TTL (refreshing, or answering
 * for a loader that failed or ran past its timeout).
 */
export type CacheStatus = 'hit' | 'miss' | 'stale';

/** A value with its cache status (what `X-Cache` reports on HTTP, upper-cased: `HIT`, `MISS`, `STALE`). */
export interface Fetched<T> {
  /** The value: cached, or the loader's result (which may be `undefined`, never cached). */
  readonly value: T;
  /** `'hit'` (fresh from the cache), `'miss'` (the loader ran, here or in a call sharing it) or `'stale'`. */
  readonly status: CacheStatus;
}

/**
 * An entry found in Redis. `stale` and `inGrace` are decided from the key's PTTL, i.e. the server's clock
 * (invariant 3).
 */
export interface FoundEntry {
  readonly value: unknown;
  /** Past its fresh TTL: in its stale window, or in its grace window. */
  readonly stale: boolean;
  /** Past its stale window too: kept only to answer when a load fails or runs late (`graceMs`). */
  readonly inGrace: boolean;
  readonly pttl?: number;
  /** The part of the key's TTL after freshness (its stale and grace windows), ms. */
  readonly staleMs: number;
  readonly deltaMs: number;
  /** Estimated heap of the decoded value (see DecodedEntry.decodedBytes). */
  readonly decodedBytes: number;
}

/** Decides, per call, whether a loaded result is stored (`unless` of @Cacheable). */
export type StorePredicate = (value: unknown) => boolean;

export const NOTHING: Promise<undefined> = Promise.resolve(undefined);

/**
 * A decoded entry with its freshness: stale when its PTTL is inside the stale and grace windows at the end of its TTL
 * (or it just expired), in grace when inside the last one.
 */
export function found(decoded: DecodedEntry, pttl: number | undefined): FoundEntry {
  const { graceMs } = decoded;
  const tailMs = decoded.staleMs + graceMs;
  const past = tailMs > 0 && pttl !== undefined && (pttl === -2 || (pttl >= 0 && pttl <= tailMs));
  return {
    value: decoded.value,
    stale: past,
    inGrace: past && graceMs > 0 && (pttl === -2 || pttl! <= graceMs),
    pttl,
    staleMs: tailMs,
    deltaMs: decoded.deltaMs,
    decodedBytes: decoded.decodedBytes,
  };
}
