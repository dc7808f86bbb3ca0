import { randomBytes } from 'node:crypto';
import { brotliCompressSync } from 'node:zlib';
import { type CacheCodec, CodecRegistry, JSON_CACHE_CODEC } from './cache-codec';
import { decodeEntry, encodeEntry } from './entry-envelope';
import { encodeValue } from './value-codec';

// A binary codec (what an adapter such as msgpackr returns: bytes) and a text one, for the envelope only.
const bytesCodec: CacheCodec = {
  format: 'test-bytes',
  encode: (value) => new Uint8Array(Buffer.from(JSON.stringify(value), 'utf8')),
  decode: (data) => JSON.parse((data as Buffer).toString('utf8')),
};
const textCodec: CacheCodec = {
  format: 'test-text',
  encode: (value) => `T${JSON.stringify(value)}`,
  decode: (data) => JSON.parse((data as string).slice(1)),
};
const reader = { codecs: new CodecRegistry([bytesCodec, textCodec]), maxDecodedBytes: 1 << 20 };
const brotli = { algorithm: 'brotli', thresholdBytes: 1024, level: 4 } as const;
const gzip = { algorithm: 'gzip', thresholdBytes: 1024, level: 6 } as const;

const big = { rows: Array.from({ length: 200 }, (_, i) => ({ id: i, name: `row ${i}`, at: new Date(i * 1000) })) };

describe('cache entry envelope', () => {
  it('keeps the built-in codec below the threshold in layout 1, synchronously', () => {
    const raw = encodeEntry({ a: 1 }, { staleMs: 0, graceMs: 0 }, 0, { codec: JSON_CACHE_CODEC, compression: brotli });
    expect(raw).toBe('1::0:0:{"a":1}');
    expect(decodeEntry(raw as string, reader)).toEqual({ value: { a: 1 }, staleMs: 0, graceMs: 0, deltaMs: 0, decodedBytes: 14 });
  });

  it('writes a grace window after the stale window, and reads both back (layouts 1 and 2)', async () => {
    const raw = encodeEntry({ a: 1 }, { staleMs: 500, graceMs: 60_000 }, 3, { codec: JSON_CACHE_CODEC });
    expect(raw).toBe('1::500g60000:3:{"a":1}');
    expect(decodeEntry(raw as string, reader)).toEqual({ value: { a: 1 }, staleMs: 500, graceMs: 60_000, deltaMs: 3, decodedBytes: 14 });
    const compressed = await encodeEntry(big, { staleMs: 0, graceMs: 9 }, 1, { codec: JSON_CACHE_CODEC, compression: gzip });
    expect(compressed.startsWith('2:tbg:0g9:1:json:')).toBe(true);
    expect(await decodeEntry(compressed, reader)).toMatchObject({ staleMs: 0, graceMs: 9, deltaMs: 1 });
    // A payload containing the letter g does not reach the header's field; a bad field is not one of ours.
    expect(decodeEntry('1::0:0:"gg"', reader)).toMatchObject({ value: 'gg', staleMs: 0, graceMs: 0 });
    for (const bad of ['1::5g:0:1', '1::g5:0:1', '1::5g5g5:0:1', '1::5x:0:1']) expect(decodeEntry(bad, reader)).toBeUndefined();
  });

  it.each([brotli, gzip])('compresses at the threshold with $algorithm, and reads it back (typed values kept)', async (compression) => {
    const raw = await encodeEntry(big, { staleMs: 500, graceMs: 0 }, 7, { codec: JSON_CACHE_CODEC, compression });
    expect(raw.startsWith(`2:tb${compression.algorithm === 'brotli' ? 'z' : 'g'}:500:7:json:`)).toBe(true);
    expect(raw.length).toBeLessThan(JSON.stringify(big).length / 3);
    const decoded = await decodeEntry(raw, reader);
    // Its size is what it decompressed to (UTF-16), not what is stored.
    expect(decoded).toEqual({ value: big, staleMs: 500, graceMs: 0, deltaMs: 7, decodedBytes: encodeValue(big).json.length * 2 });
    expect((decoded!.value as typeof big).rows[3].at).toBeInstanceOf(Date);
  });

  it('stores what does not compress well as it is', async () => {
    // Random base64 text: 6 bits of entropy per byte, so compression saves at most a quarter, which base64 takes back.
    const random = randomBytes(3000).toString('base64');
    const raw = await encodeEntry(random, { staleMs: 0, graceMs: 0 }, 0, { codec: JSON_CACHE_CODEC, compression: brotli });
    expect(raw.startsWith('1::0:0:')).toBe(true);
  });

  it('records the codec: bytes as base64, text as is, each compressed above the threshold', async () => {
    const small = { a: 1 };
    const asBytes = encodeEntry(small, { staleMs: 0, graceMs: 0 }, 0, { codec: bytesCodec }) as string;
    expect(asBytes).toBe(`2:b:0:0:test-bytes:${Buffer.from('{"a":1}').toString('base64')}`);
    expect(decodeEntry(asBytes, reader)).toEqual({ value: small, staleMs: 0, graceMs: 0, deltaMs: 0, decodedBytes: 7 });
    const asText = encodeEntry(small, { staleMs: 0, graceMs: 0 }, 0, { codec: textCodec }) as string;
    expect(asText).toBe('2::0:0:test-text:T{"a":1}');
    expect(decodeEntry(asText, reader)).toEqual({ value: small, staleMs: 0, graceMs: 0, deltaMs: 0, decodedBytes: 16 });
    const plain = JSON.parse(JSON.stringify(big)) as unknown;
    for (const codec of [bytesCodec, textCodec]) {
      const raw = await encodeEntry(plain, { staleMs: 0, graceMs: 0 }, 0, { codec, compression: brotli });
      expect(raw).toMatch(new RegExp(`^2:${codec === textCodec ? 's' : ''}bz:0:0:${codec.format}:`));
      expect((await decodeEntry(raw, reader))!.value).toEqual(plain);
    }
  });

  it('treats an unknown format, a failing codec or a payload expanding past the limit as a miss', async () => {
    expect(decodeEntry('2::0:0:nobody-knows:x', reader)).toBeUndefined();
    expect(decodeEntry('2::0:0:test-text:not-T-prefixed', reader)).toBeUndefined();
    // 8 MB of zeros in a few KB: a bomb for a reader allowing 1 MB.
    const bomb = brotliCompressSync(Buffer.alloc(8 << 20)).toString('base64');
    expect(await decodeEntry(`2:bz:0:0:json:${bomb}`, reader)).toBeUndefined();
    expect(await decodeEntry('2:bz:0:0:json:not base64 brotli', reader)).toBeUndefined();
  });

  it('refuses two codecs with one format, and a custom codec named json', () => {
    const registry = new CodecRegistry([textCodec]);
    expect(() => registry.register({ ...textCodec })).toThrow(/share the format "test-text"/);
    registry.register(textCodec);
  });
});
