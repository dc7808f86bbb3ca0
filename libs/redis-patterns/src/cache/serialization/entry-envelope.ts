import { type CacheCodec, type CodecRegistry, JSON_CACHE_CODEC } from './cache-codec';
import { COMPRESSION_FLAGS, type CompressionSettings, compress, decompress } from './compression';
import { decodeValue, encodeValue } from './value-codec';

/**
 * What the cache stores under a key: a short header and the encoded value, in one string so that a hit is one GET.
 *
 * Layout 1 (the built-in JSON codec, uncompressed — the common case, decoded without a promise):
 * `1:<flags>:<staleMs>:<deltaMs>:<json>`.
 * Layout 2 (another codec, or a compressed value): `2:<flags>:<staleMs>:<deltaMs>:<format>:<payload>`.
 *
 * - `flags`: `t` the JSON holds typed values (Date, BigInt, …) that need reviving; `b` the payload is base64 bytes (a
 *   binary codec's output, or compressed); `z` / `g` compressed with brotli / gzip; `s` the codec's output was text
 *   (restored as text after decompression).
 * - `staleMs`: the stale-while-revalidate window, written `<staleMs>` or, with a grace window, `<staleMs>g<graceMs>`.
 *   The key's TTL in Redis is fresh + stale + grace, so "is it fresh?" is `PTTL > staleMs + graceMs` and "is it only
 *   a grace value?" is `PTTL <= graceMs`: decided by the server's clock, not ours (invariant 3).
 * - `deltaMs`: how long the loader took, for probabilistic early refresh (XFetch).
 * - `format`: the codec that wrote the payload ({@link CacheCodec.format}).
 */
export interface DecodedEntry {
  readonly value: unknown;
  readonly staleMs: number;
  /** The grace window at the very end of the key's TTL: the value is kept only to answer when a load fails. */
  readonly graceMs: number;
  readonly deltaMs: number;
  /**
   * An estimate of the heap the decoded value takes: the UTF-16 size of the text it was parsed from, or the byte
   * length of a binary codec's input, after decompression (a compressed entry's stored size says nothing of it).
   */
  readonly decodedBytes: number;
}

/** How an entry is written: its codec and the cache's compression (undefined: off). */
export interface EntryFormat {
  readonly codec: CacheCodec;
  readonly compression?: CompressionSettings;
}

/** How entries are read: the codecs known by format, and the most bytes a compressed payload may expand to. */
export interface EntryReader {
  readonly codecs: CodecRegistry;
  readonly maxDecodedBytes: number;
}

/**
 * Serializes a value with its header; throws CacheSerializationError (or the codec's error) for values that cannot be
 * stored. Synchronous for the built-in codec below the compression threshold; a promise when it compresses.
 */
export function encodeEntry(
  value: unknown,
  windows: { readonly staleMs: number; readonly graceMs: number },
  deltaMs: number,
  format: EntryFormat,
): string | Promise<string> {
  const { codec, compression } = format;
  // Without a grace window the header is what it always was: entries stay readable by earlier versions.
  const staleMs = windows.graceMs > 0 ? `${windows.staleMs}g${windows.graceMs}` : windows.staleMs;
  if (codec === JSON_CACHE_CODEC) {
    const { json, typed } = encodeValue(value);
    const flags = typed ? 't' : '';
    // UTF-16 length ≤ UTF-8 size: a short string is below the threshold without counting its bytes.
    if (compression === undefined || json.length * 3 < compression.thresholdBytes) return `1:${flags}:${staleMs}:${deltaMs}:${json}`;
    const bytes = Buffer.from(json, 'utf8');
    if (bytes.length < compression.thresholdBytes) return `1:${flags}:${staleMs}:${deltaMs}:${json}`;
    return compressed(bytes, compression).then((packed) =>
      packed === undefined
        ? `1:${flags}:${staleMs}:${deltaMs}:${json}`
        : `2:${flags}b${COMPRESSION_FLAGS[compression.algorithm]}:${staleMs}:${deltaMs}:json:${packed}`,
    );
  }
  const data = codec.encode(value);
  const text = typeof data === 'string';
  const head = `:${staleMs}:${deltaMs}:${codec.format}:`;
  const plain = (): string => (text ? `2:${head}${data}` : `2:b${head}${toBuffer(data).toString('base64')}`);
  if (compression === undefined) return plain();
  const bytes = text ? Buffer.from(data, 'utf8') : toBuffer(data);
  if (bytes.length < compression.thresholdBytes) return plain();
  return compressed(bytes, compression).then((packed) =>
    packed === undefined ? plain() : `2:${text ? 's' : ''}b${COMPRESSION_FLAGS[compression.algorithm]}${head}${packed}`,
  );
}

// The compressed bytes as base64, or undefined when that would not be smaller than storing the value as it is.
async function compressed(bytes: Buffer, compression: CompressionSettings): Promise<string | undefined> {
  const packed = await compress(bytes, compression);
  // base64 grows the bytes by 4/3: compression must win by more than that to be worth a decompression per read.
  return Math.ceil(packed.length / 3) * 4 < bytes.length ? packed.toString('base64') : undefined;
}

// The header's window field, `<staleMs>` or `<staleMs>g<graceMs>` (NaN for anything else: not one of ours).
function windowsOf(raw: string, start: number, end: number): { staleMs: number; graceMs: number } {
  if (end === start + 1 && raw.charCodeAt(start) === 48) return NO_WINDOWS;
  // Only the header's field is searched: the payload after it may be long.
  let g = start;
  while (g < end && raw.charCodeAt(g) !== 103 /* 'g' */) g++;
  if (g === end) return { staleMs: Number(raw.slice(start, end)), graceMs: 0 };
  return {
    staleMs: g === start ? Number.NaN : Number(raw.slice(start, g)),
    graceMs: g + 1 === end ? Number.NaN : Number(raw.slice(g + 1, end)),
  };
}

const NO_WINDOWS = { staleMs: 0, graceMs: 0 } as const;

function toBuffer(data: Uint8Array): Buffer {
  return Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

/**
 * Parses a stored entry; `undefined` for anything that is not one of ours (foreign or corrupt data, an unknown
 * format, a payload that expands past the limit: a miss). Synchronous for layout 1; a promise for a compressed entry.
 */
export function decodeEntry(raw: string, reader: EntryReader): DecodedEntry | undefined | Promise<DecodedEntry | undefined> {
  const layout = raw.charCodeAt(0);
  if ((layout !== 49 /* '1' */ && layout !== 50) /* '2' */ || raw.charCodeAt(1) !== 58 /* ':' */) return undefined;
  const a = raw.indexOf(':', 2);
  const b = raw.indexOf(':', a + 1);
  const c = raw.indexOf(':', b + 1);
  if (a < 0 || b < 0 || c < 0) return undefined;
  const { staleMs, graceMs } = windowsOf(raw, a + 1, b);
  const deltaMs = c === b + 2 && raw.charCodeAt(b + 1) === 48 ? 0 : Number(raw.slice(b + 1, c));
  if (!Number.isFinite(staleMs) || !Number.isFinite(graceMs) || !Number.isFinite(deltaMs)) return undefined;
  if (layout === 49) {
    const typed = a > 2 && raw.charCodeAt(2) === 116; /* 't' */
    try {
      return { value: decodeValue(raw.slice(c + 1), typed), staleMs, graceMs, deltaMs, decodedBytes: (raw.length - c - 1) * 2 };
    } catch {
      return undefined;
    }
  }
  const d = raw.indexOf(':', c + 1);
  if (d < 0) return undefined;
  const flags = raw.slice(2, a);
  const codec = reader.codecs.get(raw.slice(c + 1, d));
  if (!codec) return undefined;
  const payload = raw.slice(d + 1);
  const decode = (data: string | Buffer): DecodedEntry | undefined => {
    try {
      const value =
        codec === JSON_CACHE_CODEC
          ? decodeValue(typeof data === 'string' ? data : data.toString('utf8'), flags.includes('t'))
          : codec.decode(data);
      return { value, staleMs, graceMs, deltaMs, decodedBytes: typeof data === 'string' ? data.length * 2 : data.length };
    } catch {
      return undefined;
    }
  };
  const algorithm = flags.includes(COMPRESSION_FLAGS.brotli)
    ? COMPRESSION_FLAGS.brotli
    : flags.includes(COMPRESSION_FLAGS.gzip)
      ? COMPRESSION_FLAGS.gzip
      : '';
  if (!algorithm) return decode(flags.includes('b') ? Buffer.from(payload, 'base64') : payload);
  const text = codec === JSON_CACHE_CODEC || flags.includes('s');
  return decompress(Buffer.from(payload, 'base64'), algorithm, reader.maxDecodedBytes).then(
    (bytes) => decode(text ? bytes.toString('utf8') : bytes),
    () => undefined,
  );
}
