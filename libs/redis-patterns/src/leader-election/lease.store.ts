import type { RedisConnections } from '../core/connections/redis-connections';
import { DEFAULT_FENCE_TTL_MS, type LeaseSettings } from '../lease/lease.options';
import type { ExclusiveLeaseStore } from '../lease/lease.store';
import { createExclusiveLeaseStore } from '../lease/create-exclusive-lease-store';

/** Injection token of the store that holds the leader leases. */
export const LEASE_STORE = Symbol('RedisPatterns:LeaseStore');

/**
 * Leases are locks: the lock section's store (one deployment, a Redlock quorum, or memory; its connection, WAIT
 * and orphan clean-up) with the lock's scripts — acquire with a fencing token in one round trip, compare-and-PEXPIRE
 * renewal, compare-and-delete release. The one difference: a lease's fencing counter always has a TTL, even with
 * `lock.fenceTtlMs: 0`. Leases need no exception to invariant 1, because the acquire script never issues a token
 * below the server clock in µs, so tokens keep increasing after a counter expires.
 */
export function createLeaseStore(settings: LeaseSettings, connections: RedisConnections): ExclusiveLeaseStore {
  return createExclusiveLeaseStore(
    { ...settings, fenceTtlMs: settings.fenceTtlMs > 0 ? settings.fenceTtlMs : DEFAULT_FENCE_TTL_MS },
    connections,
  );
}
