import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { isPrototypeKey, parseJsonSafely } from '../core/serialization/parse-json-safely';

// User fields and the store's own metadata share one hash (so one key and one TTL hold the whole session);
// the `f:` / `m:` prefixes keep a user field named `ttl` from ever overwriting the metadata.
const FIELD = 'f:';

/** Session data: a flat object whose values are JSON-serialisable; each top-level field is one hash field. */
export type SessionData = Record<string, unknown>;

/** Encodes session fields as `f:<name>`, JSON value pairs; `undefined` values are listed for deletion instead. */
export function encodeFields(data: unknown, argument: string): { set: string[]; remove: string[] } {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new InvalidArgumentError(argument, 'expected a plain object of session fields');
  }
  const set: string[] = [];
  const remove: string[] = [];
  for (const [name, value] of Object.entries(data)) {
    if (name.length === 0 || name.length > 256) {
      throw new InvalidArgumentError(`${argument}.${name}`, 'field names must have 1 to 256 characters');
    }
    if (value === undefined) {
      remove.push(FIELD + name);
      continue;
    }
    const json = JSON.stringify(value);
    if (json === undefined) throw new InvalidArgumentError(`${argument}.${name}`, 'expected a JSON-serialisable value');
    set.push(FIELD + name, json);
  }
  return { set, remove };
}

/** Decodes an HGETALL reply into session data, skipping the store's metadata fields. */
export function decodeFields(hash: Record<string, string>): SessionData {
  const data: SessionData = {};
  for (const [field, json] of Object.entries(hash)) {
    if (!field.startsWith(FIELD)) continue;
    // Anything with access to the server may have written the hash: a field named `__proto__` would replace the
    // session's prototype, and prototype keys inside a value would pollute `Object.prototype` once merged.
    const name = field.slice(FIELD.length);
    const value = parseJsonSafely(json);
    if (!isPrototypeKey(name, value)) data[name] = value;
  }
  return data;
}
