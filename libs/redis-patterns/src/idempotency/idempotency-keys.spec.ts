import { KeyBuilder } from '../core/keys/key-builder';
import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { checkKeyResult, idempotencyRecordKey, parseIdempotencyKeyHeader } from './idempotency-keys';
import { InvalidIdempotencyKeyError } from './invalid-idempotency-key.error';

const parse = (value: string | string[] | undefined) => parseIdempotencyKeyHeader(value, 'idempotency-key');

describe('parseIdempotencyKeyHeader', () => {
  it.each([
    ['"8e03978e-40d5-43e8-bc93-6894a57f9324"', '8e03978e-40d5-43e8-bc93-6894a57f9324'],
    ['8e03978e-40d5-43e8-bc93-6894a57f9324', '8e03978e-40d5-43e8-bc93-6894a57f9324'],
    ['  "a b"  ', 'a b'],
    ['"say \\"hi\\" \\\\ there"', 'say "hi" \\ there'],
    ['"k";expires=10', 'k'],
    [['"only-one"'], 'only-one'],
  ])('reads %j as %j', (header, key) => {
    expect(parse(header)).toBe(key);
  });

  it('returns undefined when the request has no header', () => {
    expect(parse(undefined)).toBeUndefined();
  });

  it.each([
    ['""', 'empty'],
    ['', 'not a string or token'],
    ['"unterminated', 'unterminated'],
    ['"a", "b"', 'two members (a repeated header folded by Node)'],
    ['"bad\\escape"', 'an escape other than \\" and \\\\'],
    ['"tab\there"', 'a control character'],
    ['two words', 'a bare value with a space'],
    [`"${'x'.repeat(256)}"`, 'longer than 255 characters'],
    [['"a"', '"b"'], 'two fields'],
  ] as Array<[string | string[], string]>)('refuses %j (%s) with a 400', (header) => {
    const error = (() => {
      try {
        parse(header);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(InvalidIdempotencyKeyError);
    expect((error as InvalidIdempotencyKeyError).toHttpResponse().status).toBe(400);
    expect((error as InvalidIdempotencyKeyError).reason).toBe('malformed');
  });
});

describe('checkKeyResult', () => {
  it('keeps strings, writes numbers as text, and reads undefined, null and "" as no key', () => {
    expect(checkKeyResult('k1', 'key')).toBe('k1');
    expect(checkKeyResult(42, 'key')).toBe('42');
    expect(checkKeyResult(7n, 'key')).toBe('7');
    for (const none of [undefined, null, '']) expect(checkKeyResult(none, 'key')).toBeUndefined();
  });

  it('refuses other types, naming the function', () => {
    expect(() => checkKeyResult({ id: 1 }, 'key(...args)')).toThrow(InvalidArgumentError);
    expect(() => checkKeyResult(Number.NaN, 'key(...args)')).toThrow('key(...args)');
  });
});

describe('idempotencyRecordKey', () => {
  const keys = new KeyBuilder('rp');

  it('puts scope, identity and key in one hash tag, escaped', () => {
    expect(idempotencyRecordKey(keys, 'Orders.create', 'user:1', 'abc')).toBe('rp:idem:{Orders.create:user%3A1:abc}');
    expect(idempotencyRecordKey(keys, 'Orders.create', undefined, 'a}b{c')).toBe('rp:idem:{Orders.create::a%7Db%7Bc}');
  });

  it('never lets one caller reach another caller key, whatever they send', () => {
    // "user:1" + key "x" against "user" + key "1:x": escaping keeps the parts apart.
    expect(idempotencyRecordKey(keys, 's', 'user:1', 'x')).not.toBe(idempotencyRecordKey(keys, 's', 'user', '1:x'));
    expect(idempotencyRecordKey(keys, 's', undefined, 'k')).not.toBe(idempotencyRecordKey(keys, 's', 'k', ''));
  });
});
