import { isDeepStrictEqual } from 'node:util';
import { encodeArguments } from './encode-arguments';
import { UncacheableArgumentError } from './uncacheable-argument.error';

/** A small deterministic PRNG (mulberry32), so a failure reproduces. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Characters of the encoding itself, so generated strings and keys try to forge its delimiters.
const ALPHABET = ['a', '1', 'n', 'u', '"', '\\', ',', ':', '{', '}', '[', ']', 'D', 'B', 'J', 'M', 'T', '-', ' ', '\u2028'];

function generator(seed: number): (depth?: number) => unknown {
  const random = prng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const text = () => Array.from({ length: Math.floor(random() * 4) }, () => pick(ALPHABET)).join('');
  const value = (depth = 0): unknown => {
    const leaf = depth >= 3 || random() < 0.5;
    if (leaf) {
      return pick<() => unknown>([
        () => text(),
        () => pick([0, -0, 1, -1, 1.5, 1e21, NaN, Infinity]),
        () => pick([0n, 1n, -1n]),
        () => random() < 0.5,
        () => null,
        () => undefined,
        () => new Date(pick([0, 1, 86_400_000])),
        () => Buffer.from(text()),
        () => new Uint8Array(Buffer.from(text())),
        () => new Int16Array([pick([0, 1, 256])]),
        () => new URL(`https://a/${encodeURIComponent(text())}`),
      ])();
    }
    const size = Math.floor(random() * 3);
    return pick<() => unknown>([
      () => Array.from({ length: size }, () => value(depth + 1)),
      () => Object.fromEntries(Array.from({ length: size }, () => [text(), value(depth + 1)]).filter(([, v]) => v !== undefined)),
      () => new Map(Array.from({ length: size }, () => [value(depth + 1), value(depth + 1)])),
      () => new Set(Array.from({ length: size }, () => value(depth + 1))),
    ])();
  };
  return value;
}

describe('encodeArguments (default decorator keys)', () => {
  it('is stable across object key order and trailing undefined', () => {
    expect(encodeArguments([{ a: 1, b: [2, { d: 1, c: 2 }] }])).toBe(encodeArguments([{ b: [2, { c: 2, d: 1 }], a: 1 }]));
    expect(encodeArguments([1, undefined])).toBe(encodeArguments([1]));
    expect(encodeArguments([])).toBe('-');
    const bare = Object.assign(Object.create(null) as object, { a: 1 });
    expect(encodeArguments([bare])).toBe(encodeArguments([{ a: 1 }]));
  });

  it('distinguishes values JSON would conflate', () => {
    const url = new URL('https://a/x');
    const encodings = [
      [1],
      ['1'],
      [1n],
      [true],
      ['true'],
      [null],
      ['null'],
      [undefined, 1],
      [0],
      [-0],
      [new Date(0)],
      [new Date(0).toISOString()],
      [new Date(NaN)],
      [[1]],
      [{ a: undefined }, 1],
      ['a', 'b'],
      ['a,b'],
      [Buffer.from('x')],
      [new Uint8Array(Buffer.from('x'))],
      [new Int8Array(Buffer.from('x'))],
      [url],
      [url.href],
      [new URL('https://a/y')],
      [new Map([[1, 2]])],
      [new Set([1, 2])],
      [[[1, 2]]],
    ].map((args) => encodeArguments(args));
    expect(new Set(encodings).size).toBe(encodings.length);
  });

  it('is injective over mixed nested values: equal encodings only for deeply equal argument lists', () => {
    const value = generator(20240601);
    const byEncoding = new Map<string, unknown[]>();
    let collisions = 0;
    for (let i = 0; i < 20_000; i++) {
      const args = Array.from({ length: 1 + (i % 3) }, () => value());
      while (args.length > 0 && args[args.length - 1] === undefined) args.pop();
      const encoded = encodeArguments(args);
      const earlier = byEncoding.get(encoded);
      if (earlier === undefined) {
        byEncoding.set(encoded, args);
        continue;
      }
      collisions++;
      if (!isDeepStrictEqual(earlier, args)) {
        throw new Error(`${encoded} encodes both ${JSON.stringify(earlier)} and ${JSON.stringify(args)}`);
      }
    }
    // The generator must produce repeats, or the property was never put to the test.
    expect(collisions).toBeGreaterThan(100);
    expect(byEncoding.size).toBeGreaterThan(5_000);
  });

  it('gives no key to what an encoding cannot see, naming the argument and its type', () => {
    class ReportFilter {
      readonly #tenant: string;
      constructor(tenant: string) {
        this.#tenant = tenant;
      }
      get tenant(): string {
        return this.#tenant;
      }
    }
    const req: Record<string, unknown> = {};
    req.self = req;
    const cases: Array<[unknown[], RegExp]> = [
      [[new ReportFilter('A')], /^argument 0 \(ReportFilter\)/],
      [['x', { filter: [1, /a/] }], /^argument 1 at \.filter\[1\] \(RegExp\)/],
      [[new Error('e')], /\(Error\)/],
      [[() => 1], /\(function\)/],
      [[Symbol('s')], /\(symbol\)/],
      [[new WeakMap()], /\(WeakMap\)/],
      [[Promise.resolve(1)], /\(Promise\)/],
      [[req], /^argument 0 at \.self \(circular structure\)/],
      [[{ [Symbol('k')]: 1 }], /\(object with symbol keys\)/],
      [[new (class extends Map {})()], /cannot be part of a cache key/],
    ];
    for (const [args, message] of cases) {
      expect(() => encodeArguments(args)).toThrow(UncacheableArgumentError);
      expect(() => encodeArguments(args)).toThrow(message);
    }
  });
});
