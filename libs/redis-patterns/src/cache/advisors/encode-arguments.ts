/**
 * A stable text for a method's arguments, for the default key of a decorated method: JSON-like, with object keys
 * sorted (so `{a, b}` and `{b, a}` give one key), Dates as ISO strings, BigInts and Buffers tagged, trailing
 * `undefined` arguments dropped. Throws for what cannot identify a call (functions, symbols, circular
 * structures such as an HTTP request object): give the decorator an explicit `key` then.
 */
export function encodeArguments(args: readonly unknown[]): string {
  let end = args.length;
  while (end > 0 && args[end - 1] === undefined) end--;
  if (end === 0) return '-';
  const seen: object[] = [];
  let out = '';
  for (let i = 0; i < end; i++) out += (i > 0 ? ',' : '') + encode(args[i], seen);
  return out;
}

function encode(value: unknown, seen: object[]): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
    case 'boolean':
      return String(value);
    case 'undefined':
      return 'u';
    case 'bigint':
      return `${value}n`;
    case 'function':
    case 'symbol':
      throw new TypeError(`a ${typeof value} argument cannot be part of a cache key`);
  }
  if (value === null) return 'null';
  const object = value as object;
  if (object instanceof Date) return `D${object.toISOString()}`;
  if (Buffer.isBuffer(object)) return `B${object.toString('base64')}`;
  if (seen.includes(object)) throw new TypeError('a circular argument cannot be part of a cache key');
  seen.push(object);
  try {
    if (Array.isArray(object)) return `[${object.map((item) => encode(item, seen)).join(',')}]`;
    if (object instanceof Map || object instanceof Set) return `${object.constructor.name}${encode([...object], seen)}`;
    const record = object as Record<string, unknown>;
    const keys = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${encode(record[key], seen)}`).join(',')}}`;
  } finally {
    seen.pop();
  }
}
