import { decodeValue, encodeValue } from './value-codec';

/**
 * What the cache stores under a key: a short header and the value's JSON, in one string so that a hit is one GET
 * and one parse. Layout: `1:<flags>:<staleMs>:<deltaMs>:<json>`.
 *
 * - `flags`: `t` when the JSON holds typed values (Date, BigInt, …) that need reviving.
 * - `staleMs`: the stale-while-revalidate window at the end of the key's TTL. The key's TTL in Redis is
 *   fresh + stale, so "is it stale?" is `PTTL <= staleMs`: decided by the server's clock, not ours (invariant 3).
 * - `deltaMs`: how long the loader took, for probabilistic early refresh (XFetch).
 */
export interface DecodedEntry {
  readonly value: unknown;
  readonly staleMs: number;
  readonly deltaMs: number;
}

const VERSION = '1';

/** Serializes a value with its header; throws CacheSerializationError for values that cannot round-trip. */
export function encodeEntry(value: unknown, staleMs: number, deltaMs: number): string {
  const { json, typed } = encodeValue(value);
  return `${VERSION}:${typed ? 't' : ''}:${staleMs}:${deltaMs}:${json}`;
}

/** Parses a stored entry; `undefined` for anything that is not one of ours (foreign or corrupt data is a miss). */
export function decodeEntry(raw: string): DecodedEntry | undefined {
  if (raw.charCodeAt(0) !== 49 /* '1' */ || raw.charCodeAt(1) !== 58 /* ':' */) return undefined;
  const a = raw.indexOf(':', 2);
  const b = raw.indexOf(':', a + 1);
  const c = raw.indexOf(':', b + 1);
  if (a < 0 || b < 0 || c < 0) return undefined;
  const typed = a > 2 && raw.charCodeAt(2) === 116; /* 't' */
  const staleMs = b === a + 2 && raw.charCodeAt(a + 1) === 48 ? 0 : Number(raw.slice(a + 1, b));
  const deltaMs = c === b + 2 && raw.charCodeAt(b + 1) === 48 ? 0 : Number(raw.slice(b + 1, c));
  if (!Number.isFinite(staleMs) || !Number.isFinite(deltaMs)) return undefined;
  try {
    return { value: decodeValue(raw.slice(c + 1), typed), staleMs, deltaMs };
  } catch {
    return undefined;
  }
}
