import type { KeyBuilder } from '../core/keys/key-builder';
import { type LeaseKeys, leaseKeysOf } from '../lease/lease-keys';

/** Key pattern (the constant after the prefix) of every leader lease. */
export const LEASE_KEY_PATTERN = 'leader';

/**
 * The keys of a resource's lease, in the kernel's layout so the lock's scripts and stores serve them unchanged:
 * `<prefix>:leader:{<resource>}` holds the leader's owner token with TTL = the lease, and
 * `<prefix>:leader:{<resource>}:fence` the fencing counter (always with a TTL: see lease.store.ts). One hash tag per
 * resource, so the acquire script touches one cluster slot (invariant 4); the resource is escaped by the KeyBuilder.
 */
export function leaseKeys(keys: KeyBuilder, resource: string): LeaseKeys {
  return leaseKeysOf(keys, LEASE_KEY_PATTERN, resource);
}
