import type { KeyBuilder } from '../core/keys/key-builder';
import { FENCE_SUFFIX, type LeaseKeys, leaseKeysOf } from '../lease/lease-keys';

/** Key pattern (the constant after the prefix) of every lock key. */
export const LOCK_KEY_PATTERN = 'lock';

/**
 * The keys of a resource's lock; the resource is escaped by the KeyBuilder (invariant 8):
 * - `lease`: `<prefix>:lock:{<resource>}`, the owner's token, with the lock TTL;
 * - `fence`: `<prefix>:lock:{<resource>}:fence`, the fencing counter, with `fenceTtlMs` (or none when that is 0).
 */
export function lockKeys(keys: KeyBuilder, resource: string): LeaseKeys {
  return leaseKeysOf(keys, LOCK_KEY_PATTERN, resource);
}

/**
 * The keys of a resource's read-write lock: in the lock's slot group, so one script may touch them all on a cluster,
 * and sharing the mutex's fencing counter, so read, write and mutex tokens of the resource are comparable.
 */
export interface ReadWriteKeys {
  /** `<group>:rw-writer`: the writer's owner token, with the write lease's TTL. */
  readonly writer: string;
  /** `<group>:rw-readers`: sorted set of reader tokens → lease expiry (Redis ms); TTL = the latest expiry. */
  readonly readers: string;
  /** `<group>:rw-waiting`: sorted set of waiting writers → expiry of their mark; TTL = the latest expiry. */
  readonly waiting: string;
  /** `<group>:fence`: the resource's fencing counter, the mutex's own. */
  readonly fence: string;
}

/** The read-write lock keys of a resource (escaped as the lock's). */
export function readWriteKeys(keys: KeyBuilder, resource: string): ReadWriteKeys {
  const { lease: group, fence } = lockKeys(keys, resource);
  return {
    writer: keys.member(group, 'rw-writer'),
    readers: keys.member(group, 'rw-readers'),
    waiting: keys.member(group, 'rw-waiting'),
    fence,
  };
}

/**
 * SCAN globs of the lock keys that may legitimately have no TTL, for the doctor's "keys without TTL" check.
 * Lock keys always carry one; fencing counters have none only when `lock.fenceTtlMs` is 0, because a counter
 * must outlive every holder to keep fencing tokens increasing.
 */
export function lockKeyPatternsWithoutTtl(keys: KeyBuilder, fenceTtlMs: number | undefined): string[] {
  return fenceTtlMs === 0 ? [`${keys.pattern(LOCK_KEY_PATTERN)}:${FENCE_SUFFIX}`] : [];
}

/** Whether a raw key is a lock's fencing counter (`<prefix>:lock:{…}:fence`). */
export function isFenceKey(keys: KeyBuilder, key: string): boolean {
  const head = keys.prefix ? `${keys.prefix}:${LOCK_KEY_PATTERN}:{` : `${LOCK_KEY_PATTERN}:{`;
  return key.startsWith(head) && key.endsWith(`}:${FENCE_SUFFIX}`);
}
