import { decodeValue, encodeValue } from './value-codec';

/**
 * How cached values become what Redis stores, and back: JSON by default (`JSON_CACHE_CODEC`), or your own —
 * MessagePack, a schema-based format — per module (`cache.codec`) or per decorator and call (`codec`). Each entry
 * records its codec's `format`, so a reader decodes it with the codec that wrote it (readers must know it: the
 * module's `cache.codec`, `cache.codecs`, or a decorator's), and an entry of an unknown format is a miss.
 *
 * `encode` returns text, or bytes (stored base64-encoded: Redis replies are read as text); it throws for values it
 * cannot store. `decode` receives what `encode` returned — the text, or the bytes as a Buffer — and must not turn a
 * `__proto__` key into a prototype (the built-in codec drops such keys).
 */
export interface CacheCodec {
  /** Recorded with every entry: 1 to 32 of `a-z`, `0-9`, `.`, `_`, `-`; `json` is the built-in codec's. */
  readonly format: string;
  /** The stored form of `value`: text, or bytes (stored base64-encoded). Throws for a value it cannot store. */
  encode(value: unknown): string | Uint8Array;
  /** The value back from what `encode` returned: the text, or the bytes as a Buffer. */
  decode(data: string | Buffer): unknown;
}

/**
 * The built-in codec: JSON that keeps `Date`, `BigInt`, `Buffer`, `Map` and `Set` (as a superjson-style encoding
 * would) and refuses what JSON would silently drop or mangle (functions, `NaN`, class instances like `RegExp`),
 * naming where. The cache writes its entries in the most compact form (the typed marks only when needed).
 */
export const JSON_CACHE_CODEC: CacheCodec = Object.freeze({
  format: 'json',
  encode: (value: unknown): string => encodeValue(value).json,
  // Called directly, it cannot know whether typed values were written: it always revives them.
  decode: (data: string | Buffer): unknown => decodeValue(typeof data === 'string' ? data : data.toString('utf8'), true),
});

const FORMAT = /^[a-z0-9._-]{1,32}$/;

/** Why `codec` is not a usable {@link CacheCodec}, or undefined when it is. */
export function codecProblem(codec: unknown): string | undefined {
  if (typeof codec !== 'object' || codec === null) return 'an object with format, encode and decode';
  const { format, encode, decode } = codec as Partial<CacheCodec>;
  if (typeof format !== 'string' || !FORMAT.test(format)) return 'a format of 1 to 32 of a-z, 0-9, ".", "_", "-"';
  if (format === JSON_CACHE_CODEC.format && codec !== JSON_CACHE_CODEC) return `a format other than "json" (the built-in codec's)`;
  if (typeof encode !== 'function' || typeof decode !== 'function') return 'encode(value) and decode(data) functions';
  return undefined;
}

/** The codecs a cache can read, by format: the built-in one, the module's, and those of decorators and calls. */
export class CodecRegistry {
  private readonly byFormat = new Map<string, CacheCodec>([[JSON_CACHE_CODEC.format, JSON_CACHE_CODEC]]);

  constructor(codecs: readonly CacheCodec[] = []) {
    for (const codec of codecs) this.register(codec);
  }

  /** Makes entries of `codec`'s format readable. Two different codecs may not share a format. */
  register(codec: CacheCodec): void {
    const known = this.byFormat.get(codec.format);
    if (known === codec) return;
    if (known) throw new Error(`Two cache codecs share the format "${codec.format}": give each its own.`);
    this.byFormat.set(codec.format, codec);
  }

  get(format: string): CacheCodec | undefined {
    return this.byFormat.get(format);
  }
}
