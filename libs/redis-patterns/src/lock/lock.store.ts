import type { RedisConnections } from '../core/connections/redis-connections';
import type { LockContext } from './lock';
import type { LockKeys } from './lock-keys';
import type { LockSettings } from './lock.options';
import { MemoryLockStore } from './memory/memory-lock.store';
import { QuorumLockStore } from './quorum-lock-store';
import { SingleLockStore } from './single-lock-store';

/** The outcome of one acquisition attempt that reached a decision. */
export type AttemptResult =
  | { readonly acquired: true; readonly fencingToken: number }
  | {
      readonly acquired: false;
      /** `contention`: held by someone else; `replication`: taken but not acknowledged by enough replicas (given back). */
      readonly reason: 'contention' | 'replication';
      /** When the current holder's lock expires at the latest, in ms (0 when unknown). */
      readonly retryAfterMs: number;
    };

/**
 * How a held lease (a lock, a read or write lease, a semaphore permit) is extended and given back; `keys.lock` is
 * the key that holds its owner token. Each method is one round trip per node, and rejects when the store cannot
 * decide.
 */
export interface LeaseStore {
  /** True when the lease was still ours and now lives `ttlMs` more; false when it is gone or someone else's. */
  extend(keys: LockKeys, token: string, ttlMs: number): Promise<boolean>;
  /** True when the lease was ours and is given back; false when it was already gone or someone else's. */
  release(keys: LockKeys, token: string): Promise<boolean>;
}

/**
 * Where locks live: one Redis deployment, or a quorum of independent masters. Every method is one round trip per
 * node and rejects when the store cannot decide (timeout, connection down, quorum impossible); callers fail closed.
 */
export interface LockStore extends LeaseStore {
  attempt(keys: LockKeys, token: string, ttlMs: number): Promise<AttemptResult>;
}

/**
 * One kind of lease a service hands out (a lock, a read lease, a write lease): how one attempt is made, the context
 * its leases are created with, and the key its local waiters sleep on (a release of such a lease wakes the oldest).
 */
export interface LeaseSide {
  readonly context: LockContext;
  attempt(keys: LockKeys, token: string, ttlMs: number): Promise<AttemptResult>;
  waitKey(keys: LockKeys): string;
}

/** Injection token of the pattern's {@link LockStore}. */
export const LOCK_STORE = Symbol('RedisPatterns:LockStore');

/** The store the lock settings call for: a Redlock quorum over several connections, one deployment, or memory. */
export function createLockStore(settings: LockSettings, connections: RedisConnections): LockStore {
  const { redlock, fenceTtlMs, waitReplicas, waitTimeoutMs } = settings;
  // One process has one copy of every key: a quorum or replica acknowledgement adds nothing in memory.
  if (connections.memory) return new MemoryLockStore(connections.memory, fenceTtlMs);
  if (redlock) {
    return new QuorumLockStore(
      redlock.connections.map((name) => connections.executor(name)),
      fenceTtlMs,
      redlock.nodeTimeoutMs,
    );
  }
  return new SingleLockStore(connections.executor(settings.connection), fenceTtlMs, { replicas: waitReplicas, timeoutMs: waitTimeoutMs });
}
