import { CacheSerializationError } from '../cache-serialization.error';
import { CodecRegistry, JSON_CACHE_CODEC } from './cache-codec';
import { type DecodedEntry, decodeEntry, encodeEntry } from './entry-envelope';
import { decodeValue, encodeValue } from './value-codec';

const JSON_ONLY = { codec: JSON_CACHE_CODEC };
const reader = { codecs: new CodecRegistry(), maxDecodedBytes: 1 << 20 };
const encode = (value: unknown, staleMs = 0, deltaMs = 0) =>
  encodeEntry(value, { staleMs: staleMs, graceMs: 0 }, deltaMs, JSON_ONLY) as string;
const decode = (raw: string) => decodeEntry(raw, reader) as DecodedEntry | undefined;
const roundTrip = (value: unknown) => decode(encode(value))!.value;

describe('cache value codec', () => {
  it('round-trips JSON values, including falsy ones', () => {
    for (const value of [0, '', false, null, 'x', 42.5, [1, 'a', null], { a: { b: [true] } }]) {
      expect(roundTrip(value)).toEqual(value);
    }
  });

  it('round-trips Date, BigInt, Buffer, Map and Set, nested', () => {
    const value = {
      at: new Date('2026-01-02T03:04:05.678Z'),
      big: 12345678901234567890n,
      bytes: Buffer.from([0, 1, 255]),
      map: new Map<string, unknown>([['k', new Date(0)]]),
      set: new Set([1, 2]),
    };
    const back = roundTrip(value) as typeof value;
    expect(back.at).toBeInstanceOf(Date);
    expect(back.at.toISOString()).toBe('2026-01-02T03:04:05.678Z');
    expect(back.big).toBe(12345678901234567890n);
    expect(Buffer.isBuffer(back.bytes) && back.bytes.equals(Buffer.from([0, 1, 255]))).toBe(true);
    expect(back.map.get('k')).toEqual(new Date(0));
    expect([...back.set]).toEqual([1, 2]);
  });

  it('refuses what JSON would drop or mangle, naming the place', () => {
    const cases: unknown[] = [{ f: () => 1 }, Symbol('s'), NaN, { n: Infinity }, /re/, new Error('e'), new Uint16Array(2), { $rp: 'x' }];
    for (const value of cases) expect(() => encodeValue(value)).toThrow(CacheSerializationError);
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(() => encodeValue(circular)).toThrow(CacheSerializationError);
    expect(() => encodeValue({ deep: { fn: () => 1 } })).toThrow(/\$….fn/);
  });

  it('never lets __proto__ or constructor.prototype reach Object.prototype, even when merged', () => {
    const attacks = [
      '{"__proto__":{"polluted":1},"constructor":{"prototype":{"x":1}},"ok":2}',
      '{"\\u005f_proto__":{"polluted":1}}',
      '[{"a":{"__proto__":{"polluted":1}}}]',
    ];
    for (const json of attacks) {
      for (const typed of [false, true]) {
        const value = decodeValue(json, typed);
        Object.assign({}, value);
        const merged = { ...(value as object) };
        JSON.parse(JSON.stringify(merged));
        deepMerge({}, value);
      }
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).x).toBeUndefined();
    expect(decodeValue(attacks[0], false)).toEqual({ ok: 2 });
    expect(decodeValue('{"constructor":"Ford"}', false)).toEqual({ constructor: 'Ford' });
  });

  it('treats foreign or corrupt data as a miss', () => {
    expect(decode('{"a":1}')).toBeUndefined();
    expect(decode('1::0:0:{bad json')).toBeUndefined();
    expect(decode('1:x')).toBeUndefined();
  });

  it('keeps the stale window and loader duration in the header', () => {
    expect(decode(encode({ a: 1 }, 1500, 42))).toEqual({ value: { a: 1 }, staleMs: 1500, graceMs: 0, deltaMs: 42, decodedBytes: 14 });
  });
});

// The naive recursive merge that turns an own "__proto__" key into prototype pollution.
function deepMerge(target: Record<string, any>, source: unknown): void {
  if (typeof source !== 'object' || source === null) return;
  for (const key of Object.keys(source)) {
    const value = (source as Record<string, unknown>)[key];
    if (typeof value === 'object' && value !== null) {
      if (typeof target[key] !== 'object' || target[key] === null) target[key] = {};
      deepMerge(target[key], value);
    } else target[key] = value;
  }
}
