import { createHash } from 'node:crypto';

/** The longest escaped key part kept verbatim; longer parts are shortened with a hash suffix. */
export const MAX_KEY_PART_LENGTH = 200;

// `:` separates parts, braces form cluster hash tags, glob characters would widen SCAN/PSUBSCRIBE matches,
// whitespace and control characters break logs and redis-cli; `%` is the escape character itself.
const HAS_UNSAFE = /[%:{}*?[\]\\\s\x00-\x1f\x7f]/;

function percentEncode(code: number): string {
  return `%${code.toString(16).toUpperCase().padStart(2, '0')}`;
}

// The escape of every unsafe ASCII character, precomputed (undefined: kept as is).
const ASCII_ESCAPES: ReadonlyArray<string | undefined> = Array.from({ length: 128 }, (_, code) =>
  HAS_UNSAFE.test(String.fromCharCode(code)) ? percentEncode(code) : undefined,
);

// Escapes a part known to hold an unsafe character: one pass over char codes, copying the plain runs (about 4×
// faster than a replace with a callback, which mattered for identities such as IPv6 addresses).
function escapeUnsafe(part: string): string {
  let out = '';
  let from = 0;
  for (let i = 0; i < part.length; i++) {
    const code = part.charCodeAt(i);
    const escape = code < 128 ? ASCII_ESCAPES[code] : HAS_UNSAFE.test(part[i]) ? percentEncode(code) : undefined;
    if (escape === undefined) continue;
    out += part.slice(from, i) + escape;
    from = i + 1;
  }
  return out + part.slice(from);
}

/**
 * Escapes one user-supplied key part so it can never change the key's structure (invariant 8): unsafe characters
 * are percent-encoded, and a part longer than {@link MAX_KEY_PART_LENGTH} keeps a readable head and a SHA-256
 * suffix, so distinct inputs stay distinct keys. Plain names (`user42`, `order-7`) come out unchanged.
 */
export function escapeKeyPart(part: string, maxLength = MAX_KEY_PART_LENGTH): string {
  // Most parts are plain: test once, and skip the replace (and its allocation) for them.
  const escaped = HAS_UNSAFE.test(part) ? escapeUnsafe(part) : part;
  if (escaped.length <= maxLength) return escaped;
  const digest = createHash('sha256').update(part).digest('base64url').slice(0, 22);
  return `${escaped.slice(0, maxLength - 24).replace(/%[0-9A-F]?$/, '')}~h${digest}`;
}
