import { createHash, type Hash } from 'node:crypto';

/**
 * A request fingerprint: the SHA-256 (base64url) of its parts, each written in a canonical form, so the same
 * payload always gives the same fingerprint — whatever the order of an object's keys — and a different one
 * (another body, another path) a different fingerprint. Only the hash is stored, never the payload.
 *
 * The canonical form is prefix-free: every value starts with a type tag, and every value of variable length
 * (text, bytes, arrays, objects, the list of parts) carries its length first. No content — binary content
 * included — can imitate a separator, so two different lists of parts never write the same bytes.
 */
export function fingerprintOf(...parts: unknown[]): string {
  const hash = createHash('sha256');
  hash.update(`P${parts.length}:`);
  for (const part of parts) writeCanonical(hash, part, new Set());
  return hash.digest('base64url');
}

// Tags: s string, n number, t/f boolean, i bigint, u undefined / function / symbol (as JSON drops them), z null,
// c a cycle, b bytes, d date, a array or set, o object or map. Lengths count UTF-8 bytes, items or entries.
function writeCanonical(hash: Hash, value: unknown, seen: Set<object>): void {
  switch (typeof value) {
    case 'string':
      return writeText(hash, 's', value);
    case 'number':
      return void hash.update(`n${String(value)};`);
    case 'boolean':
      return void hash.update(value ? 't' : 'f');
    case 'bigint':
      return void hash.update(`i${value};`);
    case 'undefined':
    case 'function':
    case 'symbol':
      return void hash.update('u');
  }
  if (value === null) return void hash.update('z');
  const object = value as object;
  if (seen.has(object)) return void hash.update('c');
  if (object instanceof Uint8Array) {
    hash.update(`b${object.byteLength}:`);
    hash.update(object);
    return;
  }
  if (object instanceof Date) return writeText(hash, 'd', Number.isNaN(object.getTime()) ? 'NaN' : object.toISOString());
  seen.add(object);
  if (Array.isArray(object) || object instanceof Set) {
    const items = [...object];
    hash.update(`a${items.length}:`);
    for (const item of items) writeCanonical(hash, item, seen);
  } else {
    const entries: Array<[unknown, unknown]> =
      object instanceof Map
        ? [...object.entries()]
        : // As in JSON, a key holding undefined is no key: `{ a: undefined }` and `{}` are the same payload.
          Object.keys(object)
            .map((key): [unknown, unknown] => [key, (object as Record<string, unknown>)[key]])
            .filter(([, item]) => item !== undefined);
    const written = entries.map(([key, item]) => [typeof key === 'string' ? key : String(key), item] as const);
    written.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    hash.update(`o${written.length}:`);
    for (const [key, item] of written) {
      writeText(hash, 'k', key);
      writeCanonical(hash, item, seen);
    }
  }
  seen.delete(object);
}

/**
 * A tag, the UTF-8 length, then the text as a JSON string (which escapes lone surrogates: UTF-8 would turn every one
 * into U+FFFD). The length, not the quotes, tells where it ends.
 */
function writeText(hash: Hash, tag: string, text: string): void {
  const json = JSON.stringify(text);
  hash.update(`${tag}${Buffer.byteLength(json)}:`);
  hash.update(json);
}
