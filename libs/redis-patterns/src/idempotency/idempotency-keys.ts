import type { KeyBuilder } from '../core/keys/key-builder';
import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { InvalidIdempotencyKeyError } from './invalid-idempotency-key.error';

/** Key pattern (the constant after the prefix) of every idempotency record. */
export const IDEMPOTENCY_KEY_PATTERN = 'idem';

/** The longest key a client may send in the header (the draft leaves it open; 255 is what APIs commonly accept). */
export const MAX_HEADER_KEY_LENGTH = 255;

/**
 * The one key of an idempotency record: `<prefix>:idem:{<scope>:<identity>:<key>}`. One key per record, so every
 * script touches exactly one key (invariant 4), and the whole name is the hash tag: records spread over the cluster.
 * Each part is escaped and length-bounded by the KeyBuilder (invariant 8); escaped parts never contain `:`, so an
 * empty identity (none) cannot be confused with any other.
 */
export function idempotencyRecordKey(keys: KeyBuilder, scope: string, identity: string | undefined, key: string): string {
  return keys.slotGroup(IDEMPOTENCY_KEY_PATTERN, scope, identity ?? '', key);
}

// sf-string characters (RFC 8941 §3.3.3): printable ASCII; `"` and `\` only escaped.
const SF_STRING_CHAR = /^[\x20-\x21\x23-\x5b\x5d-\x7e]$/;
// What a client sends unquoted (most clients send a bare UUID): visible ASCII without separators.
const BARE_KEY = /^[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]+$/;

/**
 * The key of an `Idempotency-Key` header, or undefined when the request has none. The draft defines the field as an
 * Item Structured Header whose value is a String (`Idempotency-Key: "8e03978e-…"`); parameters after it are
 * ignored. A bare token (`Idempotency-Key: 8e03978e-…`), which many clients send, is accepted too.
 *
 * @throws InvalidIdempotencyKeyError (400) for an empty, malformed, repeated or over-long value.
 */
export function parseIdempotencyKeyHeader(value: string | string[] | undefined, header: string): string | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) {
    if (value.length !== 1) throw new InvalidIdempotencyKeyError(header, 'malformed', 'the field must appear once');
    value = value[0];
  }
  const text = value.trim();
  let key: string;
  if (text.startsWith('"')) key = parseSfString(text, header);
  else if (BARE_KEY.test(text)) key = text;
  else throw new InvalidIdempotencyKeyError(header, 'malformed', 'expected a quoted string (a Structured Field String) or a bare token');
  if (key.length === 0) throw new InvalidIdempotencyKeyError(header, 'malformed', 'the key is empty');
  if (key.length > MAX_HEADER_KEY_LENGTH)
    throw new InvalidIdempotencyKeyError(header, 'malformed', `the key is longer than ${MAX_HEADER_KEY_LENGTH} characters`);
  return key;
}

function parseSfString(text: string, header: string): string {
  let key = '';
  for (let i = 1; i < text.length; i++) {
    const char = text[i];
    if (char === '\\') {
      const next = text[++i];
      if (next !== '"' && next !== '\\') break;
      key += next;
    } else if (char === '"') {
      const rest = text.slice(i + 1).trimStart();
      // Parameters (`;name=value`) may follow an Item; a second member (`, "…"`) may not.
      if (rest === '' || rest.startsWith(';')) return key;
      break;
    } else if (SF_STRING_CHAR.test(char)) {
      key += char;
    } else {
      break;
    }
  }
  throw new InvalidIdempotencyKeyError(header, 'malformed', 'expected a single quoted string (a Structured Field String)');
}

/**
 * The key a `key` function returned: a non-empty string or a finite number; `undefined`, `null` or `''` mean "no key
 * for this call". Anything else is a programming error, reported naming the function.
 */
export function checkKeyResult(value: unknown, argument: string): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'string') return value;
  if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'bigint') return String(value);
  throw new InvalidArgumentError(argument, `expected a string, a number or undefined, received ${value === null ? 'null' : typeof value}`);
}
