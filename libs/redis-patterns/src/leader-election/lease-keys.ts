import type { KeyBuilder } from '../core/keys/key-builder';
import { type LeaseKeys, leaseKeysOf } from '../lease/lease-keys';

/** Key pattern (the constant after the prefix) of every leader lease. */
export const LEASE_KEY_PATTERN = 'leader';

/**
 * The keys of a role's lease, in the kernel's layout so the lock's scripts and stores serve them unchanged:
 * `<prefix>:leader:{<role>}` holds the leader's owner token with TTL = the lease, and
 * `<prefix>:leader:{<role>}:fence` the fencing counter (always with a TTL: see lease.store.ts). One hash tag per
 * role, so the acquire script touches one cluster slot (invariant 4); the role is escaped by the KeyBuilder.
 */
export function leaseKeys(keys: KeyBuilder, role: string): LeaseKeys {
  return leaseKeysOf(keys, LEASE_KEY_PATTERN, role);
}
