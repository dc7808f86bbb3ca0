import { fingerprintOf } from './fingerprint';

describe('fingerprintOf framing', () => {
  const bytes = (text: string) => Buffer.from(text, 'latin1');

  it.each<[string, unknown[], unknown[]]>([
    ['binary parts that embed the part separator', [bytes('a\u0000b:c')], [bytes('a'), bytes('c')]],
    ['binary items that embed the item separator', [[bytes('a,b:c')]], [[bytes('a'), bytes('c')]]],
    ['binary values that embed the key framing', [{ a: bytes('x,"b":1') }], [{ a: bytes('x'), b: 1 }]],
    ['a Uint8Array and the same bytes split in two', [new Uint8Array([98, 58, 1])], [bytes('\u0001')]],
    [
      'the string "[Circular]" and a cycle',
      [[{ a: '[Circular]' }]],
      [
        (() => {
          const o: Record<string, unknown> = {};
          o.a = o;
          return [o];
        })(),
      ],
    ],
    ['a number part and bytes that end like it', [bytes('1'), 2], [bytes('1\u00002')]],
    ['bytes and a date', [bytes('d:1970-01-01T00:00:00.000Z')], [new Date(0)]],
    ['an empty buffer and no part', [Buffer.alloc(0)], []],
    ['two different lone surrogates', ['\uD800'], ['\uDFFF']],
  ])('tells apart %s', (_, a, b) => {
    expect(fingerprintOf(...a)).not.toBe(fingerprintOf(...b));
  });

  it('is still the same for equal binary payloads', () => {
    expect(fingerprintOf(bytes('abc'), { x: new Uint8Array([1, 2]) })).toBe(fingerprintOf(Buffer.from('abc'), { x: Buffer.from([1, 2]) }));
  });
});
