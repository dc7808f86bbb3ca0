import { fingerprintOf } from './fingerprint';

describe('fingerprintOf', () => {
  it('is the same for the same payload whatever the order of its keys', () => {
    expect(fingerprintOf('POST', '/orders', { a: 1, b: { c: [1, 2], d: 'x' } })).toBe(
      fingerprintOf('POST', '/orders', { b: { d: 'x', c: [1, 2] }, a: 1 }),
    );
  });

  it('treats a key holding undefined as absent, as JSON does', () => {
    expect(fingerprintOf({ a: 1, b: undefined })).toBe(fingerprintOf({ a: 1 }));
  });

  it.each([
    [
      ['POST', '/orders', { amount: 10 }],
      ['POST', '/orders', { amount: 11 }],
    ],
    [
      ['POST', '/orders', { amount: 10 }],
      ['PUT', '/orders', { amount: 10 }],
    ],
    [
      ['POST', '/orders?x=1', {}],
      ['POST', '/orders?x=2', {}],
    ],
    [
      ['ab', 'c'],
      ['a', 'bc'],
    ],
    [[1], ['1']],
    [[[1, 2]], [[2, 1]]],
    [[new Date(0)], [new Date(1)]],
    [[Buffer.from('a')], [Buffer.from('b')]],
    [[null], [undefined]],
  ])('tells %j from %j', (a, b) => {
    expect(fingerprintOf(...a)).not.toBe(fingerprintOf(...b));
  });

  it('survives cycles and values JSON cannot write', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(fingerprintOf(cyclic)).toBe(fingerprintOf(cyclic));
    expect(fingerprintOf({ n: 10n, m: new Map([['k', new Set([1])]]), f: () => 1 })).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
