import type { KeyBuilder } from '../core/keys/key-builder';
import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { type LeaseKeys, leaseKeysOf } from '../lease/lease-keys';

/** Key pattern (the constant after the prefix) of every semaphore key. */
export const SEMAPHORE_KEY_PATTERN = 'semaphore';

/**
 * The keys of a semaphore, under one hash tag (invariant 4), in the shape a permit (a lease) carries:
 * - `lease`: `<prefix>:semaphore:{<resource>}`, the holders — a sorted set of owner token → permit expiry (Redis ms),
 *   with the TTL of its latest expiry;
 * - `fence`: `<prefix>:semaphore:{<resource>}:fence`, the fencing counter every permit of the semaphore draws from,
 *   with `lock.fenceTtlMs`.
 */
export function semaphoreKeys(keys: KeyBuilder, resource: string): LeaseKeys {
  return leaseKeysOf(keys, SEMAPHORE_KEY_PATTERN, resource);
}

/** Rejects a permit count that is not a positive integer, naming the argument. */
export function checkPermits(permits: unknown): number {
  if (typeof permits !== 'number' || !Number.isInteger(permits) || permits < 1) {
    throw new InvalidArgumentError('permits', `expected an integer of at least 1, received ${String(permits)}`);
  }
  return permits;
}
