/** The part of a key Redis Cluster hashes: the first non-empty `{…}`, else the whole key. */
export function hashTagOf(key: string): string {
  const open = key.indexOf('{');
  if (open >= 0) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) return key.slice(open + 1, close);
  }
  return key;
}

/** The cluster slot of a key, as Redis computes it: CRC16 (XMODEM) of its hash tag's UTF-8 bytes, modulo 16384. */
export function keySlot(key: string): number {
  const bytes = Buffer.from(hashTagOf(key), 'utf8');
  let crc = 0;
  for (const byte of bytes) crc = ((crc << 8) ^ CRC16[((crc >> 8) ^ byte) & 0xff]) & 0xffff;
  return crc & 16383;
}

const CRC16 = Array.from({ length: 256 }, (_, n) => {
  let crc = n << 8;
  for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  return crc;
});
