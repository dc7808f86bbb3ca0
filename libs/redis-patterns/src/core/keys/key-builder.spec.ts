import { escapeKeyPart, MAX_KEY_PART_LENGTH, unescapeKeyPart } from './escape-key-part';
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

  it('escapes exactly the unsafe characters, each as its UTF-8 bytes in fixed-width %XX, across the whole BMP', () => {
    const unsafe = /[%:{}*?[\]\\\s\x00-\x1f\x7f\ud800-\udfff]/;
    for (let code = 0; code < 0x10000; code++) {
      const ch = String.fromCharCode(code);
      const expected = unsafe.test(ch) ? utf8Escape(code) : ch;
      if (escapeKeyPart(`a${ch}b${ch}`) !== `a${expected}b${expected}`)
        throw new Error(`U+${code.toString(16)} escaped as ${escapeKeyPart(ch)}`);
    }
    expect(escapeKeyPart('2001:db8::1')).toBe('2001%3Adb8%3A%3A1');
    expect(escapeKeyPart('\u2028')).toBe('%E2%80%A8');
    // Astral characters (a well-formed surrogate pair) are never whitespace: kept as they are.
    expect(escapeKeyPart('\u{1F600}')).toBe('\u{1F600}');
  });

  it('is injective: distinct inputs give distinct parts, including those that look escaped', () => {
    expect(escapeKeyPart('a:b')).not.toBe(escapeKeyPart('a%3Ab'));
    // Fixed width: with code points as 4 hex digits, U+2028 was %2028, the same as a space then "28".
    expect(escapeKeyPart('\u2028')).not.toBe(escapeKeyPart(' 28'));
    // Two lone surrogates reach Redis as the same U+FFFD unless they are escaped.
    expect(escapeKeyPart('a\ud800')).not.toBe(escapeKeyPart('a\udc00'));
    expect(escapeKeyPart('a\ud800')).not.toBe(escapeKeyPart('a\ufffd'));
  });

  it('bounds the length and keeps long inputs distinct', () => {
    const a = escapeKeyPart('x'.repeat(5000));
    const b = escapeKeyPart('x'.repeat(4999) + 'y');
    expect(a.length).toBeLessThanOrEqual(MAX_KEY_PART_LENGTH);
    expect(a).not.toBe(b);
  });

  it('marks the shortened form with a sequence escaping never writes, so sending it verbatim is another key', () => {
    const victim = 'q='.repeat(140);
    const shortened = escapeKeyPart(victim);
    expect(shortened).toContain('%~');
    // The attacker sends the victim's shortened form as its own value: it is escaped, never the same key.
    expect(escapeKeyPart(shortened)).not.toBe(shortened);
  });

  it('never maps two random inputs to one part (whitespace of the BMP, %, surrogates, lengths around the cut)', () => {
    const alphabet = [
      'a',
      'b',
      '2',
      '8',
      '%',
      '2',
      'A',
      ':',
      ' ',
      '\u00a0',
      '\u2028',
      '\u3000',
      '\ufeff',
      '\ud800',
      '\udc00',
      '~',
      'h',
      '\n',
    ];
    let seed = 42;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const seen = new Map<string, string>();
    for (let i = 0; i < 20_000; i++) {
      const length = i % 4 === 0 ? random(12) : 60 + random(160);
      let input = '';
      for (let j = 0; j < length; j++) input += alphabet[random(alphabet.length)];
      const part = escapeKeyPart(input);
      expect(part.length).toBeLessThanOrEqual(MAX_KEY_PART_LENGTH);
      const before = seen.get(part);
      if (before !== undefined && before !== input) throw new Error(`${JSON.stringify(before)} and ${JSON.stringify(input)} share ${part}`);
      seen.set(part, input);
      if (part.length < 176) expect(unescapeKeyPart(part)).toBe(input);
    }
  });

  it('unescapes what it escaped, lone surrogates included', () => {
    for (const input of ['plain', 'a:b c', '\u2028x', '%41', 'caf\u00e9 \u00a0', 'a\ud800b', '{tag}*?[x]']) {
      expect(unescapeKeyPart(escapeKeyPart(input))).toBe(input);
    }
  });
});

function utf8Escape(code: number): string {
  const bytes =
    code < 0x80
      ? [code]
      : code < 0x800
        ? [0xc0 | (code >> 6), 0x80 | (code & 0x3f)]
        : [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)];
  return bytes.map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
}

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
