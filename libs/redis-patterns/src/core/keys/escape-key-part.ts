import { createHash } from 'node:crypto';

/** The longest escaped key part kept verbatim; longer parts are shortened with a hash suffix. */
export const MAX_KEY_PART_LENGTH = 200;

/**
 * What separates a shortened part's readable head from its digest. The escaper only ever writes `%` followed by two
 * upper-case hex digits, so `%~` can never come out of escaping: a crafted input can never take over a long value's
 * key by sending its shortened form verbatim.
 */
const DIGEST_MARK = '%~';
const DIGEST_LENGTH = 22;

// `:` separates parts, braces form cluster hash tags, glob characters would widen SCAN/PSUBSCRIBE matches,
// whitespace and control characters break logs and redis-cli; `%` is the escape character itself.
const HAS_UNSAFE = /[%:{}*?[\]\\\s\x00-\x1f\x7f\ud800-\udfff]/;

function byteEscape(byte: number): string {
  return `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
}

// The escape of every unsafe ASCII character, precomputed (undefined: kept as is).
const ASCII_ESCAPES: ReadonlyArray<string | undefined> = Array.from({ length: 128 }, (_, code) =>
  HAS_UNSAFE.test(String.fromCharCode(code)) ? byteEscape(code) : undefined,
);

/**
 * The escape of an unsafe non-ASCII UTF-16 unit: its UTF-8 bytes (WTF-8 for a lone surrogate), each as `%XX`.
 * Fixed width per byte makes the escape injective; a lone surrogate must be escaped because Redis receives UTF-8, in
 * which every lone surrogate becomes the same U+FFFD.
 */
function unitEscape(code: number): string {
  if (code < 0x800) return byteEscape(0xc0 | (code >> 6)) + byteEscape(0x80 | (code & 0x3f));
  return byteEscape(0xe0 | (code >> 12)) + byteEscape(0x80 | ((code >> 6) & 0x3f)) + byteEscape(0x80 | (code & 0x3f));
}

// Escapes a part known to hold an unsafe character: one pass over char codes, copying the plain runs (about 4×
// faster than a replace with a callback, which mattered for identities such as IPv6 addresses).
function escapeUnsafe(part: string): string {
  let out = '';
  let from = 0;
  for (let i = 0; i < part.length; i++) {
    const code = part.charCodeAt(i);
    let escape: string | undefined;
    if (code < 128) escape = ASCII_ESCAPES[code];
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < part.length && isLowSurrogate(part.charCodeAt(i + 1))) {
      i++; // a well-formed pair is an astral character: never whitespace, kept as is
      continue;
    } else if (HAS_UNSAFE.test(part[i])) escape = unitEscape(code);
    if (escape === undefined) continue;
    out += part.slice(from, i) + escape;
    from = i + 1;
  }
  return out + part.slice(from);
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * Escapes one user-supplied key part so it can never change the key's structure (invariant 8): unsafe characters
 * (`%`, `:`, braces, glob characters, backslash, whitespace, control characters, lone surrogates) become their UTF-8
 * bytes as `%XX`. A part whose escaped form is longer than `maxLength` (default {@link MAX_KEY_PART_LENGTH}) keeps a
 * readable head and a SHA-256 digest of the whole escaped form after a mark escaping never writes (`%~`). Distinct
 * inputs give distinct parts, and plain names (`user42`, `order-7`) come out unchanged.
 */
export function escapeKeyPart(part: string, maxLength = MAX_KEY_PART_LENGTH): string {
  // Most parts are plain: test once, and skip the escape pass (and its allocation) for them.
  const escaped = HAS_UNSAFE.test(part) ? escapeUnsafe(part) : part;
  if (escaped.length <= maxLength) return escaped;
  // The digest covers the escaped form, which is injective and well-formed UTF-16 (hashing the input itself would
  // map every lone surrogate to U+FFFD).
  const digest = createHash('sha256').update(escaped).digest('base64url').slice(0, DIGEST_LENGTH);
  const head = escaped.slice(0, maxLength - DIGEST_MARK.length - DIGEST_LENGTH).replace(/%[0-9A-F]?$/, '');
  return head + DIGEST_MARK + digest;
}

/**
 * The inverse of {@link escapeKeyPart} for a part that was not shortened (a shortened part is returned as is):
 * decodes each run of `%XX` as UTF-8 bytes.
 */
export function unescapeKeyPart(escaped: string): string {
  if (!escaped.includes('%') || escaped.includes(DIGEST_MARK)) return escaped;
  return escaped.replace(/(?:%[0-9A-F]{2})+/g, (run) => {
    const bytes = Buffer.from(run.replace(/%/g, ''), 'hex');
    return decodeWtf8(bytes);
  });
}

// UTF-8 decoding that also restores lone surrogates written by unitEscape (TextDecoder would turn them into U+FFFD).
function decodeWtf8(bytes: Buffer): string {
  let out = '';
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i];
    if (b < 0x80) {
      out += String.fromCharCode(b);
      i += 1;
    } else if (b < 0xe0) {
      out += String.fromCharCode(((b & 0x1f) << 6) | (bytes[i + 1] & 0x3f));
      i += 2;
    } else {
      out += String.fromCharCode(((b & 0x0f) << 12) | ((bytes[i + 1] & 0x3f) << 6) | (bytes[i + 2] & 0x3f));
      i += 3;
    }
  }
  return out;
}
