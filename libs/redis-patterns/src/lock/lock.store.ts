import type { RedisConnections } from '../core/connections/redis-connections';
import type { AttemptResult } from '../lease/attempt-result';
import type { LeaseContext } from '../lease/lease';
import type { LeaseKeys } from '../lease/lease-keys';
import type { ExclusiveLeaseStore } from '../lease/lease.store';
import type { LockSettings } from './lock.options';
import { MemoryLockStore } from './memory/memory-lock.store';
import { QuorumLockStore } from './quorum-lock-store';
import { SingleLockStore } from './single-lock-store';

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

/** The store the lock settings call for: a Redlock quorum over several connections, one deployment, or memory. */
export function createLockStore(settings: LockSettings, connections: RedisConnections): LockStore {
  const { redlock, fenceTtlMs, waitReplicas, waitReplicasTimeoutMs } = settings;
  // One process has one copy of every key: a quorum or replica acknowledgement adds nothing in memory.
  if (connections.memory) return new MemoryLockStore(connections.memory, fenceTtlMs);
  if (redlock) {
    return new QuorumLockStore(
      redlock.connections.map((name) => connections.executor(name)),
      fenceTtlMs,
      redlock.nodeTimeoutMs,
    );
  }
  return new SingleLockStore(connections.executor(settings.connection), fenceTtlMs, {
    replicas: waitReplicas,
    timeoutMs: waitReplicasTimeoutMs,
  });
}
