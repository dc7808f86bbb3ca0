import type { KeyBuilder } from '../core/keys/key-builder';
import { InvalidArgumentError } from '../errors/invalid-argument.error';

/** Key pattern (the constant after the prefix) of every lock key. */
export const LOCK_KEY_PATTERN = 'lock';
/** Suffix of a resource's fencing counter inside the lock's slot group. */
export const FENCE_SUFFIX = 'fence';

/** The two keys of one resource. They share a hash tag, so one script may touch both on a cluster (invariant 4). */
export interface LockKeys {
  /** `<prefix>:lock:{<resource>}`: holds the owner's token, with the lock TTL. */
  readonly lock: string;
  /** `<prefix>:lock:{<resource>}:fence`: the fencing counter, with `fenceTtlMs` (or none when that is 0). */
  readonly fence: string;
}

/** The keys of a resource; the resource is escaped by the KeyBuilder (invariant 8). */
export function lockKeys(keys: KeyBuilder, resource: string): LockKeys {
  const group = keys.slotGroup(LOCK_KEY_PATTERN, resource);
  return { lock: group, fence: keys.member(group, FENCE_SUFFIX) };
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
  const { lock: group, fence } = lockKeys(keys, resource);
  return {
    writer: keys.member(group, 'rw-writer'),
    readers: keys.member(group, 'rw-readers'),
    waiting: keys.member(group, 'rw-waiting'),
    fence,
  };
}

/** Rejects a resource that cannot name a lock, naming the argument. */
export function checkResource(resource: unknown, argument = 'resource'): string {
  if (typeof resource !== 'string' || resource.length === 0) {
    throw new InvalidArgumentError(
      argument,
      `expected a non-empty string, received ${typeof resource === 'string' ? 'an empty string' : typeof resource}`,
    );
  }
  return resource;
}

/** Rejects a TTL or wait that is not a positive (or, for waits, non-negative) integer number of ms. */
export function checkMs(value: unknown, argument: string, min: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw new InvalidArgumentError(argument, `expected an integer of at least ${min} (ms), received ${String(value)}`);
  }
  return value;
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
