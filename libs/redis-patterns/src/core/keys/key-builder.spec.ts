import { escapeKeyPart, MAX_KEY_PART_LENGTH } from './escape-key-part';
import { KeyBuilder } from './key-builder';

describe('escapeKeyPart', () => {
  it('keeps plain names verbatim', () => {
    expect(escapeKeyPart('user42')).toBe('user42');
    expect(escapeKeyPart('order-7_a.b')).toBe('order-7_a.b');
  });

  it('escapes every character that could change a key structure or a glob', () => {
    const escaped = escapeKeyPart('a:b{c}*?[d]\\ e\n%');
    expect(escaped).not.toMatch(/[:{}*?[\]\\\s]/);
    expect(escaped).toBe('a%3Ab%7Bc%7D%2A%3F%5Bd%5D%5C%20e%0A%25');
  });

  it('percent-encodes exactly the unsafe characters, one UTF-16 unit at a time, across the whole BMP', () => {
    const unsafe = /[%:{}*?[\]\\\s\x00-\x1f\x7f]/;
    for (let code = 0; code < 0x10000; code++) {
      const ch = String.fromCharCode(code);
      const expected = unsafe.test(ch) ? `%${code.toString(16).toUpperCase().padStart(2, '0')}` : ch;
      if (escapeKeyPart(`a${ch}b${ch}`) !== `a${expected}b${expected}`)
        throw new Error(`U+${code.toString(16)} escaped as ${escapeKeyPart(ch)}`);
    }
    expect(escapeKeyPart('2001:db8::1')).toBe('2001%3Adb8%3A%3A1');
  });

  it('is injective: distinct inputs give distinct parts, including those that look escaped', () => {
    expect(escapeKeyPart('a:b')).not.toBe(escapeKeyPart('a%3Ab'));
  });

  it('bounds the length and keeps long inputs distinct', () => {
    const a = escapeKeyPart('x'.repeat(5000));
    const b = escapeKeyPart('x'.repeat(4999) + 'y');
    expect(a.length).toBeLessThanOrEqual(MAX_KEY_PART_LENGTH);
    expect(a).not.toBe(b);
  });
});

describe('KeyBuilder', () => {
  const keys = new KeyBuilder('app');

  it('builds <prefix>:<pattern>:<parts>', () => {
    expect(keys.key('cache', 'user1')).toBe('app:cache:user1');
    expect(keys.key('cache', 'a:b', 'c')).toBe('app:cache:a%3Ab:c');
  });

  it('hash-tags a slot group so its members share one slot, whatever the user input', () => {
    const group = keys.slotGroup('lock', 'order:{42}');
    expect(group).toBe('app:lock:{order%3A%7B42%7D}');
    expect(keys.member(group, 'fence')).toBe('app:lock:{order%3A%7B42%7D}:fence');
    // The first {...} of the key is the hash tag: it must be the escaped identity.
    expect(/\{([^}]*)\}/.exec(keys.member(group, 'fence'))?.[1]).toBe('order%3A%7B42%7D');
  });

  it('works without a prefix and builds SCAN globs', () => {
    expect(new KeyBuilder('').key('cache', 'k')).toBe('cache:k');
    expect(keys.pattern('cache')).toBe('app:cache:*');
    expect(keys.pattern()).toBe('app:*');
  });
});
