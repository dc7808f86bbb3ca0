// Adapted from nestjs/throttler (MIT, see LICENSE in test/compliance/nestjs-throttler) test/utility/hash.ts: unchanged.
import * as crypto from 'node:crypto';

export function md5(text: string): string {
  return crypto.createHash('md5').update(text).digest('hex');
}
