import { encodeArguments } from './encode-arguments';

describe('encodeArguments (default decorator keys)', () => {
  it('is stable across object key order and trailing undefined', () => {
    expect(encodeArguments([{ a: 1, b: [2, { d: 1, c: 2 }] }])).toBe(encodeArguments([{ b: [2, { c: 2, d: 1 }], a: 1 }]));
    expect(encodeArguments([1, undefined])).toBe(encodeArguments([1]));
    expect(encodeArguments([])).toBe('-');
  });

  it('distinguishes values JSON would conflate', () => {
    const encodings = [[1], ['1'], [null], [undefined, 1], [1n], [new Date(0)], [[1]], [{ a: undefined }], ['a', 'b'], ['a,b']].map(
      (args) => encodeArguments(args),
    );
    expect(new Set(encodings).size).toBe(encodings.length);
  });

  it('refuses functions and circular arguments (such as a request object)', () => {
    const req: Record<string, unknown> = {};
    req.self = req;
    expect(() => encodeArguments([req])).toThrow(/circular/);
    expect(() => encodeArguments([() => 1])).toThrow(/function/);
  });
});
