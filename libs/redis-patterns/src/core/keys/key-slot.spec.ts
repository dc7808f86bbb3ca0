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
    // The ASCII fast path and the byte path agree with CRC16 over the UTF-8 bytes, whatever the key holds.
    const alphabet = ['a', 'Z', '0', ':', '%', '{', '}', 'é', '€', '😀', ' '];
    let seed = 7;
    for (let n = 0; n < 500; n++) {
      let key = '';
      for (let i = 0; i < n % 23; i++) key += alphabet[(seed = (seed * 48271) % 2147483647) % alphabet.length];
      expect(keySlot(key)).toBe(crc16OfBytes(Buffer.from(hashTagOf(key), 'utf8')) % 16384);
    }
  });
});

/** CRC16 (XMODEM) bit by bit, as the Redis Cluster specification defines it: the reference the table must match. */
function crc16OfBytes(bytes: Buffer): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}
