import { KeyBuilder } from '../core/keys/key-builder';
import { ChannelNames, isChannelPattern } from './channel-names';

describe('ChannelNames', () => {
  const names = new ChannelNames(new KeyBuilder('app'));

  it('puts plain channels verbatim under <prefix>:pubsub:', () => {
    expect(names.channel('orders')).toBe('app:pubsub:orders');
  });

  it('escapes separators, braces, globs and whitespace in channel names', () => {
    expect(names.channel('user:42 {x}*')).toBe('app:pubsub:user%3A42%20%7Bx%7D%2A');
  });

  it('keeps glob characters of patterns and escapes the literal text between them', () => {
    expect(names.pattern('orders:*')).toBe('app:pubsub:orders%3A*');
    expect(names.pattern('room-?:[ab]*')).toBe('app:pubsub:room-?%3A[ab]*');
    // An unterminated class is literal text.
    expect(names.pattern('a[')).toBe('app:pubsub:a%5B');
  });

  it('escapes glob characters of the key prefix inside a pattern', () => {
    expect(new ChannelNames(new KeyBuilder('a*b')).pattern('x*')).toBe('a\\*b:pubsub:x*');
  });

  it('maps raw channels back to user-facing names', () => {
    for (const name of ['orders', 'user:42 events', 'a%b', 'tab\there']) expect(names.display(names.channel(name))).toBe(name);
  });

  it('detects patterns by their glob characters', () => {
    expect(isChannelPattern('a*')).toBe(true);
    expect(isChannelPattern('a?')).toBe(true);
    expect(isChannelPattern('[ab]')).toBe(true);
    expect(isChannelPattern('orders:created')).toBe(false);
  });
});
