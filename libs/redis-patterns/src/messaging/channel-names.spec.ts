import { KeyBuilder } from '../core/keys/key-builder';
import { ChannelNames, isDeclaredPattern } from './channel-names';

describe('ChannelNames', () => {
  const names = new ChannelNames(new KeyBuilder('app'));

  it('puts plain channels verbatim under <prefix>:pubsub:', () => {
    expect(names.channel('orders')).toBe('app:pubsub:orders');
  });

  it('escapes separators, braces, globs and whitespace in channel names', () => {
    expect(names.channel('user:42 {x}*')).toBe('app:pubsub:user%3A42%20%7Bx%7D%2A');
    expect(names.channel('[a-z]?\\')).toBe('app:pubsub:%5Ba-z%5D%3F%5C');
    expect(names.channel('%2A')).toBe('app:pubsub:%252A');
  });

  it('keeps glob characters of patterns and escapes the literal text between them', () => {
    expect(names.pattern('orders:*')).toBe('app:pubsub:orders%3A*');
    expect(names.pattern('room-?:[ab]*')).toBe('app:pubsub:room-?%3A[ab]*');
    expect(names.pattern('[]a]x')).toBe('app:pubsub:[]a]x');
    // An unterminated class is literal text.
    expect(names.pattern('a[')).toBe('app:pubsub:a%5B');
    expect(names.pattern('a[b')).toBe('app:pubsub:a%5Bb');
    expect(names.pattern('[[x*')).toBe('app:pubsub:%5B%5Bx*');
    expect(names.pattern('[[a]')).toBe('app:pubsub:[[a]');
    expect(names.pattern('a[[b]:c')).toBe('app:pubsub:a[[b]%3Ac');
  });

  it('compiles a pattern of many "[" in linear time: the search for a closing "]" scans each character at most once', () => {
    // Counted, not timed: every indexOf(']') call's scanned distance is summed. A scan to the end per "[" (the
    // quadratic form) would scan about n²/2 characters here.
    let scanned = 0;
    const indexOf = String.prototype.indexOf;
    const spy = jest.spyOn(String.prototype, 'indexOf').mockImplementation(function (this: string, search: string, from?: number) {
      const found = indexOf.call(this, search, from);
      if (search === ']') scanned += (found === -1 ? this.length : found) - (from ?? 0);
      return found;
    });
    try {
      const n = 100_000;
      expect(names.pattern('['.repeat(n))).toBe(`app:pubsub:${'%5B'.repeat(n)}`);
      expect(names.pattern('[a'.repeat(n))).toBe(`app:pubsub:${'%5Ba'.repeat(n)}`);
      expect(names.pattern(`${'['.repeat(n / 2)}]`)).toBe(`app:pubsub:${'['.repeat(n / 2)}]`);
      expect(scanned).toBeLessThanOrEqual(4 * n);
    } finally {
      spy.mockRestore();
    }
  });

  it('escapes glob characters of the key prefix inside a pattern', () => {
    expect(new ChannelNames(new KeyBuilder('a*b')).pattern('x*')).toBe('a\\*b:pubsub:x*');
  });

  it('maps raw channels back to user-facing names, non-ASCII included', () => {
    for (const name of ['orders', 'user:42 events', 'a%b', 'tab\there', 'nbsp\u00a0x', '日本\u3000語', '%C3%A9', 'café ☕', 'room:*']) {
      expect(names.display(names.channel(name))).toBe(name);
    }
  });

  it('treats a name declared in code with glob characters as a pattern', () => {
    expect(isDeclaredPattern('a*')).toBe(true);
    expect(isDeclaredPattern('a?')).toBe(true);
    expect(isDeclaredPattern('[ab]')).toBe(true);
    expect(isDeclaredPattern('orders:created')).toBe(false);
  });
});
