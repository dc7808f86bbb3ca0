import type { DecodedEntry } from '../serialization/entry-envelope';

/** Where a value came from: the cache (fresh), the loader, or the cache past its fresh TTL (refreshing). */
export type CacheStatus = 'hit' | 'miss' | 'stale';

/** A value with its cache status (what `X-Cache` reports on HTTP, upper-cased: `HIT`, `MISS`, `STALE`). */
export interface Fetched<T> {
  /** The value: cached, or the loader's result (which may be `undefined`, never cached). */
  readonly value: T;
  /** `'hit'` (fresh from the cache), `'miss'` (the loader ran, here or in a call sharing it) or `'stale'`. */
  readonly status: CacheStatus;
}

/** An entry found in Redis. `stale` is decided from the key's PTTL, i.e. the server's clock (invariant 3). */
export interface FoundEntry {
  readonly value: unknown;
  readonly stale: boolean;
  readonly pttl?: number;
  readonly staleMs: number;
  readonly deltaMs: number;
  /** Estimated heap of the decoded value (see DecodedEntry.decodedBytes). */
  readonly decodedBytes: number;
}

/** Decides, per call, whether a loaded result is stored (`unless` of @Cacheable). */
export type StorePredicate = (value: unknown) => boolean;

export const NOTHING: Promise<undefined> = Promise.resolve(undefined);

/** A decoded entry with its freshness: stale when its PTTL is inside the stale window (or it just expired). */
export function found(decoded: DecodedEntry, pttl: number | undefined): FoundEntry {
  const stale = decoded.staleMs > 0 && pttl !== undefined && (pttl === -2 || (pttl >= 0 && pttl <= decoded.staleMs));
  return { value: decoded.value, stale, pttl, staleMs: decoded.staleMs, deltaMs: decoded.deltaMs, decodedBytes: decoded.decodedBytes };
}
