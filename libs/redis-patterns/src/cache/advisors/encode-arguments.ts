import { UncacheableArgumentError } from './uncacheable-argument.error';

/**
 * A stable, injective text for a method's arguments, for the default key of a decorated method. Encoded: primitives
 * (each type tagged, so `1`, `'1'`, `1n` and `true` differ; `-0` is not `0`), plain and null-prototype objects (own
 * enumerable keys sorted, so `{a, b}` and `{b, a}` give one key; an `undefined` property is the same as none), arrays,
 * Dates, Buffers, typed arrays, Maps and Sets (in insertion order), and any other object with a `toJSON()` method
 * (such as a URL), as its class name and what `toJSON()` returns. Trailing `undefined` arguments are dropped.
 *
 * Anything else — a class instance without `toJSON` (its state, `#private` fields or getters, is invisible here),
 * a RegExp, an Error, a function, a symbol, a WeakMap, a Promise, a circular structure such as a request — throws
 * {@link UncacheableArgumentError}: such a call has no key, never a shared one.
 */
export function encodeArguments(args: readonly unknown[]): string {
  let end = args.length;
  while (end > 0 && args[end - 1] === undefined) end--;
  if (end === 0) return '-';
  const seen: object[] = [];
  let out = '';
  for (let i = 0; i < end; i++) out += (i > 0 ? ',' : '') + encode(args[i], seen, `argument ${i}`, '');
  return out;
}

// Every encoding starts with a character telling its type, and strings and names are JSON-quoted: within an
// argument list or a container, where one value ends is never in doubt, so distinct values give distinct texts.
function encode(value: unknown, seen: object[], argument: string, at: string): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Object.is(value, -0) ? '-0' : String(value);
    case 'boolean':
      return String(value);
    case 'undefined':
      return 'u';
    case 'bigint':
      return `${value}n`;
    case 'function':
    case 'symbol':
      throw new UncacheableArgumentError(where(argument, at), typeof value);
  }
  if (value === null) return 'null';
  const object = value as object;
  const proto = Object.getPrototypeOf(object) as object | null;
  if (proto === Date.prototype) {
    const time = (object as Date).getTime();
    return Number.isNaN(time) ? 'DInvalid' : `D${(object as Date).toISOString()}`;
  }
  if (Buffer.isBuffer(object)) return `B${object.toString('base64')}`;
  const typedArray = typedArrayName(object, proto);
  if (typedArray !== undefined) {
    const view = object as ArrayBufferView;
    return `T${JSON.stringify(typedArray)}${Buffer.from(view.buffer, view.byteOffset, view.byteLength).toString('base64')}`;
  }
  if (seen.includes(object)) throw new UncacheableArgumentError(where(argument, at), 'circular structure');
  seen.push(object);
  try {
    if (proto === Array.prototype) {
      return `[${(object as unknown[]).map((item, i) => encode(item, seen, argument, `${at}[${i}]`)).join(',')}]`;
    }
    if (proto === Map.prototype) return `Map${encode([...(object as Map<unknown, unknown>)], seen, argument, at)}`;
    if (proto === Set.prototype) return `Set${encode([...(object as Set<unknown>)], seen, argument, at)}`;
    const toJSON = (object as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') {
      const name = (proto as { constructor?: { name?: unknown } } | null)?.constructor?.name;
      let json: unknown;
      try {
        json = toJSON.call(object, '');
      } catch {
        throw new UncacheableArgumentError(where(argument, at), `${describe(object, proto)} whose toJSON() threw`);
      }
      return `J${JSON.stringify(typeof name === 'string' ? name : '')}${encode(json, seen, argument, `${at}.toJSON()`)}`;
    }
    if (proto !== Object.prototype && proto !== null) throw new UncacheableArgumentError(where(argument, at), describe(object, proto));
    return encodeRecord(object as Record<string, unknown>, seen, argument, at);
  } finally {
    seen.pop();
  }
}

function encodeRecord(record: Record<string, unknown>, seen: object[], argument: string, at: string): string {
  // Symbol keys are invisible to Object.keys: an object keyed by them cannot be told from one without.
  if (Object.getOwnPropertySymbols(record).some((symbol) => Object.prototype.propertyIsEnumerable.call(record, symbol))) {
    throw new UncacheableArgumentError(where(argument, at), 'object with symbol keys');
  }
  let out = '';
  for (const key of Object.keys(record).sort()) {
    const item = record[key];
    if (item === undefined) continue;
    out += `${out ? ',' : ''}${JSON.stringify(key)}:${encode(item, seen, argument, `${at}.${key}`)}`;
  }
  return `{${out}}`;
}

const TYPED_ARRAYS = [
  Int8Array,
  Uint8Array,
  Uint8ClampedArray,
  Int16Array,
  Uint16Array,
  Int32Array,
  Uint32Array,
  Float32Array,
  Float64Array,
  BigInt64Array,
  BigUint64Array,
];
const TYPED_ARRAY_NAMES = new Map<object, string>(TYPED_ARRAYS.map((type) => [type.prototype, type.name]));

function typedArrayName(object: object, proto: object | null): string | undefined {
  return proto === null ? undefined : TYPED_ARRAY_NAMES.get(proto);
}

function where(argument: string, at: string): string {
  return at ? `${argument} at ${at}` : argument;
}

function describe(object: object, proto: object | null): string {
  const name = (proto as { constructor?: { name?: unknown } } | null)?.constructor?.name;
  return typeof name === 'string' && name ? name : Object.prototype.toString.call(object).slice(8, -1);
}
