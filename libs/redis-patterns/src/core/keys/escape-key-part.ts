import { createHash } from 'node:crypto';

/** The longest escaped key part kept verbatim; longer parts are shortened with a hash suffix. */
export const MAX_KEY_PART_LENGTH = 200;

// `:` separates parts, braces form cluster hash tags, glob characters would widen SCAN/PSUBSCRIBE matches,
// whitespace and control characters break logs and redis-cli; `%` is the escape character itself.
const UNSAFE = /[%:{}*?[\]\\\s\x00-\x1f\x7f]/g;
const HAS_UNSAFE = new RegExp(UNSAFE.source);

function percentEncode(ch: string): string {
  return `%${ch.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`;
}

/**
 * Escapes one user-supplied key part so it can never change the key's structure (invariant 8): unsafe characters
 * are percent-encoded, and a part longer than {@link MAX_KEY_PART_LENGTH} keeps a readable head and a SHA-256
 * suffix, so distinct inputs stay distinct keys. Plain names (`user42`, `order-7`) come out unchanged.
 */
export function escapeKeyPart(part: string, maxLength = MAX_KEY_PART_LENGTH): string {
  // Most parts are plain: test once, and skip the replace (and its allocation) for them.
  const escaped = HAS_UNSAFE.test(part) ? part.replace(UNSAFE, percentEncode) : part;
  if (escaped.length <= maxLength) return escaped;
  const digest = createHash('sha256').update(part).digest('base64url').slice(0, 22);
  return `${escaped.slice(0, maxLength - 24).replace(/%[0-9A-F]?$/, '')}~h${digest}`;
}
