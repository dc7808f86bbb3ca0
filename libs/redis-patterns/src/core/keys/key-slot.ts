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
  const tag = hashTagOf(key);
  let crc = 0;
  // Keys are ASCII after escaping (escapeKeyPart), so their UTF-16 units are their UTF-8 bytes: no Buffer per call on
  // a cluster's hot path. Anything else is hashed as its UTF-8 bytes.
  for (let i = 0; i < tag.length; i++) {
    const code = tag.charCodeAt(i);
    if (code >= 0x80) return slotOfBytes(Buffer.from(tag, 'utf8'));
    crc = ((crc << 8) ^ CRC16[((crc >> 8) ^ code) & 0xff]) & 0xffff;
  }
  return crc & 16383;
}

function slotOfBytes(bytes: Buffer): number {
  let crc = 0;
  for (let i = 0; i < bytes.length; i++) crc = ((crc << 8) ^ CRC16[((crc >> 8) ^ bytes[i]) & 0xff]) & 0xffff;
  return crc & 16383;
}

const CRC16 = Array.from({ length: 256 }, (_, n) => {
  let crc = n << 8;
  for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  return crc;
});
