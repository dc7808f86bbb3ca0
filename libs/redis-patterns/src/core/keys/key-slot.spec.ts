import { hashTagOf, keySlot } from './key-slot';

describe('keySlot', () => {
  it('is CRC16 (XMODEM) modulo 16384, as in the Redis Cluster specification', () => {
    // The specification's check value: CRC16 of "123456789" is 0x31C3.
    expect(keySlot('123456789')).toBe(0x31c3);
    expect(keySlot('')).toBe(0);
  });

  it('hashes only the first non-empty hash tag', () => {
    expect(keySlot('{user1000}.following')).toBe(keySlot('user1000'));
    expect(keySlot('rp:{rl:abc}:x')).toBe(keySlot('rl:abc'));
    expect(hashTagOf('foo{}{bar}')).toBe('foo{}{bar}'); // an empty first tag: the whole key
    expect(hashTagOf('foo{{bar}}')).toBe('{bar');
    expect(hashTagOf('foo{bar}{zap}')).toBe('bar');
  });

  it('hashes the UTF-8 bytes of the key', () => {
    expect(keySlot('é')).toBe(keySlot('\u00e9'));
    expect(keySlot('é')).not.toBe(keySlot('e'));
  });
});
