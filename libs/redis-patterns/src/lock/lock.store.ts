import type { AttemptResult } from '../lease/attempt-result';
import type { LeaseContext } from '../lease/lease';
import type { LeaseKeys } from '../lease/lease-keys';
import type { ExclusiveLeaseStore } from '../lease/lease.store';

/**
 * Where locks live: one Redis deployment, or a quorum of independent masters. Every method is one round trip per
 * node and rejects when the store cannot decide (timeout, connection down, quorum impossible); callers fail closed.
 */
export type LockStore = ExclusiveLeaseStore;

/**
 * One kind of lease a service hands out (a lock, a read lease, a write lease): how one attempt is made, the context
 * its leases are created with, and the key its local waiters sleep on (a release of such a lease wakes the oldest).
 */
export interface LeaseSide {
  readonly context: LeaseContext;
  attempt(keys: LeaseKeys, token: string, ttlMs: number): Promise<AttemptResult>;
  waitKey(keys: LeaseKeys): string;
}

/** Injection token of the pattern's {@link LockStore}. */
export const LOCK_STORE = Symbol('RedisPatterns:LockStore');
