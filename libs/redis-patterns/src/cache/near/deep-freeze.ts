/**
 * Freezes plain objects and arrays, recursively, in place. L1 hands the same decoded value to every caller (decoding
 * per hit would cost more than the hit itself), so a caller mutating it must fail loudly (a TypeError in strict
 * mode) instead of silently changing what the next caller gets. Maps, Sets, Dates and Buffers cannot be frozen in
 * a useful way and are shared as they are.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  if (ArrayBuffer.isView(value) || value instanceof Map || value instanceof Set || value instanceof Date) return value;
  Object.freeze(value);
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  return value;
}
