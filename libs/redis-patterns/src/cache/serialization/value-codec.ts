import { CacheSerializationError } from '../cache-serialization.error';
import { parseJsonSafely, sanitizingReviver } from '../../core/serialization/parse-json-safely';

/** The marker property of a typed value inside the JSON (`{"$rp":"Date","v":"…"}`). */
const TYPE_MARK = '$rp';

// Types JSON.stringify would silently turn into `{}` or a lossy string: refused rather than corrupted.
const REFUSED: ReadonlyArray<[Function, string]> = [
  [RegExp, 'a RegExp'],
  [Error, 'an Error'],
  [Promise, 'a Promise'],
  [WeakMap, 'a WeakMap'],
  [WeakSet, 'a WeakSet'],
  [ArrayBuffer, 'an ArrayBuffer'],
];

/** The JSON text of a value and whether it holds typed (non-JSON) values that need reviving on read. */
export interface EncodedValue {
  readonly json: string;
  readonly typed: boolean;
}

/**
 * Serializes a value to JSON, keeping Date, BigInt, Buffer, Map and Set as typed values. Throws
 * {@link CacheSerializationError} for anything JSON would drop or mangle silently.
 */
export function encodeValue(value: unknown): EncodedValue {
  let typed = false;
  function replacer(this: Record<string, unknown>, key: string, converted: unknown): unknown {
    // `this[key]` is the value before toJSON: a Date has already become a string in `converted`.
    const raw = this[key];
    const at = () => (key === '' ? '$' : `$…${Array.isArray(this) ? `[${key}]` : `.${key}`}`);
    switch (typeof raw) {
      case 'string':
      case 'boolean':
        return raw;
      case 'number':
        if (!Number.isFinite(raw)) throw new CacheSerializationError(at(), `${raw} is not a finite number (JSON would store null)`);
        return raw;
      case 'bigint':
        typed = true;
        return { [TYPE_MARK]: 'BigInt', v: raw.toString() };
      case 'function':
        throw new CacheSerializationError(at(), 'functions cannot be cached');
      case 'symbol':
        throw new CacheSerializationError(at(), 'symbols cannot be cached');
      case 'undefined':
        return undefined;
    }
    if (raw === null) return null;
    if (raw instanceof Date) {
      if (Number.isNaN(raw.getTime())) throw new CacheSerializationError(at(), 'an invalid Date cannot be cached');
      typed = true;
      return { [TYPE_MARK]: 'Date', v: raw.toISOString() };
    }
    if (Buffer.isBuffer(raw)) {
      typed = true;
      return { [TYPE_MARK]: 'Buffer', v: raw.toString('base64') };
    }
    if (raw instanceof Map) {
      typed = true;
      return { [TYPE_MARK]: 'Map', v: [...raw.entries()] };
    }
    if (raw instanceof Set) {
      typed = true;
      return { [TYPE_MARK]: 'Set', v: [...raw.values()] };
    }
    if (ArrayBuffer.isView(raw)) throw new CacheSerializationError(at(), 'typed arrays other than Buffer cannot be cached');
    for (const [type, label] of REFUSED) {
      if (raw instanceof type) throw new CacheSerializationError(at(), `${label} cannot be cached (JSON would store {})`);
    }
    if (!Array.isArray(raw) && Object.prototype.hasOwnProperty.call(raw, TYPE_MARK) && converted === raw) {
      throw new CacheSerializationError(at(), `objects with an own "${TYPE_MARK}" property are reserved by the cache's encoding`);
    }
    return converted;
  }
  try {
    const json = JSON.stringify(value, replacer);
    if (json === undefined) throw new CacheSerializationError('$', 'undefined is not cached');
    return { json, typed };
  } catch (error) {
    if (error instanceof CacheSerializationError) throw error;
    throw new CacheSerializationError('$', (error as Error).message.split('\n')[0]);
  }
}

/**
 * Parses cached JSON safely ({@link parseJsonSafely}): a `__proto__` key is dropped, as is a `constructor` or
 * `prototype` key holding an object, so merging the result into another object can never reach `Object.prototype`.
 * Typed values are revived when `typed` is set. The common case (neither) is a bare `JSON.parse`.
 */
export function decodeValue(json: string, typed: boolean): unknown {
  return typed ? JSON.parse(json, typedReviver) : parseJsonSafely(json);
}

function typedReviver(key: string, value: unknown): unknown {
  const safe = sanitizingReviver(key, value);
  if (typeof safe !== 'object' || safe === null || Array.isArray(safe)) return safe;
  const record = safe as Record<string, unknown>;
  const type = record[TYPE_MARK];
  if (typeof type !== 'string' || !('v' in record)) return safe;
  const v = record.v;
  switch (type) {
    case 'Date':
      return new Date(v as string);
    case 'BigInt':
      return BigInt(v as string);
    case 'Buffer':
      return Buffer.from(v as string, 'base64');
    case 'Map':
      return new Map(v as Array<[unknown, unknown]>);
    case 'Set':
      return new Set(v as unknown[]);
    default:
      return safe;
  }
}
