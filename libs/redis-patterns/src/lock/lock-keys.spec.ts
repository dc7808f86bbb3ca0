import { KeyBuilder } from '../core/keys/key-builder';
import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { checkMs, checkResource, isFenceKey, lockKeyPatternsWithoutTtl, lockKeys } from './lock-keys';

describe('lock keys', () => {
  const keys = new KeyBuilder('app');

  it('puts the lock and its fencing counter under one hash tag, with plain names verbatim', () => {
    expect(lockKeys(keys, 'invoice-7')).toEqual({ lock: 'app:lock:{invoice-7}', fence: 'app:lock:{invoice-7}:fence' });
  });

  it('escapes user input so it cannot break out of the hash tag', () => {
    const { lock, fence } = lockKeys(keys, 'a}:{b');
    expect(lock).toBe('app:lock:{a%7D%3A%7Bb}');
    expect(fence).toBe(`${lock}:fence`);
  });

  it('lists fencing counters for the doctor only when they are kept without TTL', () => {
    expect(lockKeyPatternsWithoutTtl(keys, undefined)).toEqual([]);
    expect(lockKeyPatternsWithoutTtl(keys, 0)).toEqual(['app:lock:*:fence']);
    expect(isFenceKey(keys, 'app:lock:{x}:fence')).toBe(true);
    expect(isFenceKey(keys, 'app:lock:{x}')).toBe(false);
    expect(isFenceKey(keys, 'app:cache:{x}:fence')).toBe(false);
  });

  it('rejects bad resources and durations naming the argument', () => {
    expect(() => checkResource('')).toThrow(InvalidArgumentError);
    expect(() => checkResource(42)).toThrow(/"resource"/);
    expect(() => checkMs(0, 'ttlMs', 1)).toThrow(/"ttlMs"/);
    expect(checkMs(0, 'waitMs', 0)).toBe(0);
  });
});
