import type { RedisConnections } from '../core/connections/redis-connections';
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
 * Where locks live: one Redis deployment, or a quorum of independent masters. Every method is one round trip per
 * node and rejects when the store cannot decide (timeout, connection down, quorum impossible); callers fail closed.
 */
export interface LockStore {
  attempt(keys: LockKeys, token: string, ttlMs: number): Promise<AttemptResult>;
  /** True when the lock was still ours and now lives `ttlMs` more; false when it is gone or someone else's. */
  extend(keys: LockKeys, token: string, ttlMs: number): Promise<boolean>;
  /** True when the lock was ours and is deleted; false when it was already gone or someone else's. */
  release(keys: LockKeys, token: string): Promise<boolean>;
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
