import { CacheValueTooLargeError } from '../cache-value-too-large.error';
import type { CacheSettings } from '../cache.options';
import { type CacheCodec, CodecRegistry } from '../serialization/cache-codec';
import { type DecodedEntry, decodeEntry, encodeEntry, type EntryReader } from '../serialization/entry-envelope';
import type { EntryPolicy } from './entry-policy';

/**
 * The cache's entries as stored: a value encoded with its codec (and compressed above the threshold) within
 * `maxValueBytes`, and a raw entry decoded with the codec that wrote it. The codecs a cache can read are the module's
 * and those registered by decorators and calls.
 */
export class CacheEntryCodec {
  private readonly maxRawLength: number;
  private readonly reader: EntryReader;

  constructor(private readonly settings: CacheSettings) {
    // A JS string's length never exceeds its UTF-8 size: anything longer than the cap (+ header) is not ours.
    this.maxRawLength = settings.maxValueBytes + 128;
    this.reader = { codecs: new CodecRegistry([settings.codec, ...settings.codecs]), maxDecodedBytes: 16 * settings.maxValueBytes };
  }

  /** Makes entries written with `codec` readable here (a decorator's or a call's own codec). */
  register(codec: CacheCodec): void {
    this.reader.codecs.register(codec);
  }

  /**
   * The entry of `value` (the policy's codec, else the module's); throws for a value its codec refuses and
   * `CacheValueTooLargeError` above `maxValueBytes`. A promise only when the value is compressed.
   */
  encode(value: unknown, policy: EntryPolicy, deltaMs: number): string | Promise<string> {
    const codec = policy.codec ?? this.settings.codec;
    if (policy.codec) this.register(codec);
    const payload = encodeEntry(value, policy, deltaMs, { codec, compression: this.settings.compression });
    return typeof payload === 'string' ? this.checkSize(payload) : payload.then((compressed) => this.checkSize(compressed));
  }

  /** The decoded entry; undefined for what is not one of ours. A promise only for a compressed entry. */
  decode(raw: string): DecodedEntry | undefined | Promise<DecodedEntry | undefined> {
    return raw.length > this.maxRawLength ? undefined : decodeEntry(raw, this.reader);
  }

  private checkSize(payload: string): string {
    const max = this.settings.maxValueBytes;
    // UTF-8 needs at most 3 bytes per UTF-16 unit: short strings skip the byte count.
    const bytes = payload.length * 3 <= max ? payload.length : Buffer.byteLength(payload);
    if (bytes > max) throw new CacheValueTooLargeError(bytes, max);
    return payload;
  }
}
