import type { KeyBuilder } from '../core/keys/key-builder';

/** Suffix of a lease's fencing counter inside its slot group. */
export const FENCE_SUFFIX = 'fence';

/**
 * The two keys of one lease. They share a hash tag, so one script may touch both on a cluster (invariant 4).
 */
export interface LeaseKeys {
  /**
   * The key that holds the lease, with its TTL: the owner's token (a lock, a write lease, a leader lease), or a sorted
   * set of owner token → expiry when several holders share it (read leases, semaphore permits).
   */
  readonly lease: string;
  /** `<lease>:fence`: the fencing counter every lease of the resource draws from, with `fenceTtlMs` (none when 0). */
  readonly fence: string;
}

/**
 * The keys of the lease `name` under the key pattern `pattern` (`lock`, `semaphore`, `leader`):
 * `<prefix>:<pattern>:{<name>}` and its fencing counter `<prefix>:<pattern>:{<name>}:fence`, in one slot group. The
 * name is escaped by the KeyBuilder, so user input cannot break out of the hash tag (invariant 8).
 */
export function leaseKeysOf(keys: KeyBuilder, pattern: string, name: string): LeaseKeys {
  const group = keys.slotGroup(pattern, name);
  return { lease: group, fence: keys.member(group, FENCE_SUFFIX) };
}
