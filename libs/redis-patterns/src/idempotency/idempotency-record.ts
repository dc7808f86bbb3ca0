import { decodeValue, encodeValue } from '../cache/serialization/value-codec';
import { parseJsonSafely } from '../core/serialization/parse-json-safely';

/** What a completed first call left for its duplicates to replay. */
export interface StoredOutcome {
  /** `value`: the call returned `body`; `error`: it threw an HttpException of `status` and `body` (`storeFailures`). */
  readonly kind: 'value' | 'error';
  /** The response status (HTTP handlers, and stored errors). */
  readonly status?: number;
  /** Replayed response headers, lower-case names (HTTP handlers). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The return value, or the exception's response body. */
  readonly body: unknown;
}

/** A stored outcome as the store writes it. */
export interface EncodedOutcome {
  /** JSON of kind, status and headers: small, read whole. */
  readonly meta: string;
  /** The body as the cache's value codec writes it (JSON keeping Date, BigInt, Buffer, Map, Set); `''` for undefined. */
  readonly body: string;
  /** Whether `body` holds typed values that need reviving. */
  readonly typed: boolean;
}

/**
 * Encodes an outcome for the store.
 *
 * @throws CacheSerializationError when the body holds something JSON would drop or mangle (a function, a stream,
 * a class instance with behaviour is stored as its data): the caller then does not store the outcome.
 */
export function encodeOutcome(outcome: StoredOutcome): EncodedOutcome {
  const meta = JSON.stringify({ k: outcome.kind, s: outcome.status, h: outcome.headers });
  if (outcome.body === undefined) return { meta, body: '', typed: false };
  const { json, typed } = encodeValue(outcome.body);
  return { meta, body: json, typed };
}

/** The bytes a record takes in the store: its metadata and body, as UTF-8. */
export function recordBytes(encoded: EncodedOutcome): number {
  return Buffer.byteLength(encoded.meta) + Buffer.byteLength(encoded.body);
}

/**
 * Decodes what the store read back. Anything with access to the server may have written it, so the JSON is parsed
 * safely (no prototype keys) and its shape checked; an unreadable record throws rather than replays garbage.
 */
export function decodeOutcome(encoded: EncodedOutcome): StoredOutcome {
  const meta = parseJsonSafely(encoded.meta) as { k?: unknown; s?: unknown; h?: unknown } | null;
  if (!meta || typeof meta !== 'object' || (meta.k !== 'value' && meta.k !== 'error')) throw unreadable('its metadata');
  if (meta.s !== undefined && !(Number.isInteger(meta.s) && (meta.s as number) >= 100 && (meta.s as number) <= 599))
    throw unreadable('its status');
  const headers = meta.h === undefined ? undefined : checkHeaders(meta.h);
  const body = encoded.body === '' ? undefined : decodeValue(encoded.body, encoded.typed);
  return { kind: meta.k, status: meta.s as number | undefined, headers, body };
}

function checkHeaders(value: unknown): Record<string, string> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw unreadable('its headers');
  const headers: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, text] of Object.entries(value as Record<string, unknown>)) {
    if (typeof text !== 'string') throw unreadable('its headers');
    headers[name] = text;
  }
  return headers;
}

function unreadable(part: string): Error {
  return new TypeError(`A stored idempotency record is unreadable (${part}); it was not written by this library version.`);
}
