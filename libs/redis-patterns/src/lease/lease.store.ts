import type { AttemptResult } from './attempt-result';
import type { LeaseKeys } from './lease-keys';

/**
 * How a held lease (a lock, a read or write lease, a semaphore permit, a leader lease) is extended and given back;
 * `keys.lease` is the key that holds its owner token. Each method is one round trip per node, and rejects when the
 * store cannot decide.
 */
export interface LeaseStore {
  /** True when the lease was still ours and now lives `ttlMs` more; false when it is gone or someone else's. */
  extend(keys: LeaseKeys, token: string, ttlMs: number): Promise<boolean>;
  /**
   * Gives the lease back if it is ours: true when the owner's token was there and is removed, false when it was
   * already gone or someone else's. A shared lease's member whose expiry passed but was not pruned yet counts as
   * there: {@link Lease.release} judges expiry by the lease's validity.
   */
  release(keys: LeaseKeys, token: string): Promise<boolean>;
}

/**
 * Leases one holder has at a time, each the owner token in one key (SET NX PX): a lock, a leader lease. Every method
 * is one round trip per node and rejects when the store cannot decide (timeout, connection down, quorum impossible);
 * callers fail closed.
 */
export interface ExclusiveLeaseStore extends LeaseStore {
  attempt(keys: LeaseKeys, token: string, ttlMs: number): Promise<AttemptResult>;
}
