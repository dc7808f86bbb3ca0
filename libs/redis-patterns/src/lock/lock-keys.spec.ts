import { KeyBuilder } from '../core/keys/key-builder';
import { isFenceKey, lockKeyPatternsWithoutTtl, lockKeys } from './lock-keys';
import { ACQUIRE_READ_SCRIPT } from './scripts/acquire-read.script';
import { ACQUIRE_WRITE_SCRIPT } from './scripts/acquire-write.script';

describe('lock keys', () => {
  const keys = new KeyBuilder('app');

  it('puts the lock and its fencing counter under one hash tag, with plain names verbatim', () => {
    expect(lockKeys(keys, 'invoice-7')).toEqual({ lease: 'app:lock:{invoice-7}', fence: 'app:lock:{invoice-7}:fence' });
  });

  it('escapes user input so it cannot break out of the hash tag', () => {
    const { lease, fence } = lockKeys(keys, 'a}:{b');
    expect(lease).toBe('app:lock:{a%7D%3A%7Bb}');
    expect(fence).toBe(`${lease}:fence`);
  });

  it('lists fencing counters for the doctor only when they are kept without TTL', () => {
    expect(lockKeyPatternsWithoutTtl(keys, undefined)).toEqual([]);
    expect(lockKeyPatternsWithoutTtl(keys, 0)).toEqual(['app:lock:*:fence']);
    expect(isFenceKey(keys, 'app:lock:{x}:fence')).toBe(true);
    expect(isFenceKey(keys, 'app:lock:{x}')).toBe(false);
    expect(isFenceKey(keys, 'app:cache:{x}:fence')).toBe(false);
  });
});

describe('read-write lock scripts', () => {
  it.each([ACQUIRE_READ_SCRIPT, ACQUIRE_WRITE_SCRIPT])('$name declares the keys and arguments its body uses', (script) => {
    const { body } = script;
    const highest = (name: string) => Math.max(0, ...[...body.matchAll(new RegExp(`${name}\\[(\\d+)\\]`, 'g'))].map((m) => Number(m[1])));
    expect(highest('KEYS')).toBe(script.shape!.keys);
    expect(highest('ARGV')).toBe(script.shape!.args);
  });
});
