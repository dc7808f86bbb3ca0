import { createHash, type Hash } from 'node:crypto';

/**
 * A request fingerprint: the SHA-256 (base64url) of its parts, each written in a canonical form, so the same
 * payload always gives the same fingerprint — whatever the order of an object's keys — and a different one
 * (another body, another path) a different fingerprint. Only the hash is stored, never the payload.
 */
export function fingerprintOf(...parts: unknown[]): string {
  const hash = createHash('sha256');
  for (const part of parts) {
    writeCanonical(hash, part, new Set());
    // A separator no canonical form ends with: ['ab', 'c'] and ['a', 'bc'] differ.
    hash.update('\u0000');
  }
  return hash.digest('base64url');
}

// Writes a value as deterministic JSON-like text: object keys sorted, typed values tagged, cycles cut.
function writeCanonical(hash: Hash, value: unknown, seen: Set<object>): void {
  switch (typeof value) {
    case 'string':
      hash.update(JSON.stringify(value));
      return;
    case 'number':
    case 'boolean':
      hash.update(String(value));
      return;
    case 'bigint':
      hash.update(`${value}n`);
      return;
    case 'undefined':
    case 'function':
    case 'symbol':
      hash.update('~');
      return;
  }
  if (value === null) return void hash.update('null');
  const object = value as object;
  if (seen.has(object)) return void hash.update('"[Circular]"');
  if (Buffer.isBuffer(object) || object instanceof Uint8Array) {
    hash.update('b:');
    hash.update(object as Uint8Array);
    return;
  }
  if (object instanceof Date) return void hash.update(`d:${Number.isNaN(object.getTime()) ? 'NaN' : object.toISOString()}`);
  seen.add(object);
  if (Array.isArray(object) || object instanceof Set) {
    hash.update('[');
    for (const item of object) {
      writeCanonical(hash, item, seen);
      hash.update(',');
    }
    hash.update(']');
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
    hash.update('{');
    for (const [key, item] of written) {
      hash.update(JSON.stringify(key));
      hash.update(':');
      writeCanonical(hash, item, seen);
      hash.update(',');
    }
    hash.update('}');
  }
  seen.delete(object);
}
