import { InvalidArgumentError } from '../errors/invalid-argument.error';

/** The longest name (board, counter, list) or session id accepted; longer input is a caller bug, not data. */
export const MAX_NAME_LENGTH = 512;

/** A non-empty string of bounded length: names and ids become key parts (escaped by the KeyBuilder). */
export function checkName(value: unknown, argument: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_NAME_LENGTH) {
    throw new InvalidArgumentError(argument, `expected a non-empty string of at most ${MAX_NAME_LENGTH} characters`);
  }
  return value;
}

/** The longest TTL a structure accepts: ten years, in ms. */
const MAX_TTL_MS = 10 * 365 * 86_400_000;

/** A TTL in whole milliseconds (at least 1, for PEXPIRE); `undefined` selects `fallbackMs`. */
export function checkTtlMs(value: unknown, argument: string, fallbackMs: number): number {
  if (value === undefined) return fallbackMs;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_TTL_MS) {
    throw new InvalidArgumentError(argument, 'expected a whole number of milliseconds, at least 1');
  }
  return value;
}

/** A non-negative integer (offsets, counts). */
export function checkCount(value: unknown, argument: string, min = 0, max = 1_000_000): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new InvalidArgumentError(argument, `expected an integer from ${min} to ${max}`);
  }
  return value;
}

/** Any integer (list indexes may be negative, counting from the end). */
export function checkIndex(value: unknown, argument: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    throw new InvalidArgumentError(argument, 'expected an integer');
  }
  return value;
}
