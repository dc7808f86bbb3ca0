import { InvalidArgumentError } from '../errors/invalid-argument.error';

/** Options of {@link IdempotencyService.execute}. */
export interface IdempotencyExecuteOptions {
  /** Namespace of the key (default `default`): the same key in two scopes names two operations. */
  scope?: string;
  /** How long the result is kept and replayed, in ms (default `idempotency.defaultTtlMs`). */
  ttlMs?: number;
  /** The payload's fingerprint (any string, e.g. a hash): reusing the key with another one throws IdempotencyKeyReusedError. */
  fingerprint?: string;
  /** A duplicate of a running call waits for its result (`'wait'`, default) or throws IdempotencyNotClaimedError (`in-progress`) at once. */
  onConcurrent?: 'wait' | 'reject';
  /** How long a duplicate waits, in ms (default `idempotency.defaultWaitMs`). */
  waitMs?: number;
  /** Store an HttpException the work throws, and throw it again to duplicates (default false: a retry runs again). */
  storeFailures?: boolean;
  /** Run the work without the guarantee when Redis cannot answer (default `idempotency.failOpen`). */
  failOpen?: boolean;
}

// Checks of execute()'s options: an invalid call throws InvalidArgumentError naming the option, and writes nothing.

export function checkFingerprint(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value !== 'string') throw new InvalidArgumentError('options.fingerprint', `expected a string, received ${typeof value}`);
  return value;
}

export function checkOnConcurrent(value: unknown): 'wait' | 'reject' {
  if (value === undefined || value === 'wait' || value === 'reject') return value ?? 'wait';
  throw new InvalidArgumentError('options.onConcurrent', `expected 'wait' or 'reject', received ${String(value)}`);
}

export function checkMs(value: unknown, argument: string, min: number): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min)
    throw new InvalidArgumentError(argument, `expected an integer of at least ${min} (ms), received ${String(value)}`);
  return value;
}
