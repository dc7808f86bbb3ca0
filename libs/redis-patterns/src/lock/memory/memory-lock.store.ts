import type { MemoryKeyspace } from '../../core/memory/memory-keyspace';
import type { LockKeys } from '../lock-keys';
import type { AttemptResult, LockStore } from '../lock.store';

/**
 * Locks of the module's memory mode (`connection: 'memory://'`): the same keys, owner tokens, TTLs and fencing
 * tokens as on Redis, so `using()`, extension, loss (the AbortSignal) and `@WithLock` behave as they do there.
 * Mutual exclusion holds within this process only. Each operation runs to completion before any other (one
 * thread), which is what the scripts' atomicity gives on Redis.
 */
export class MemoryLockStore implements LockStore {
  constructor(
    private readonly keyspace: MemoryKeyspace,
    private readonly fenceTtlMs: number,
  ) {}

  attempt(keys: LockKeys, token: string, ttlMs: number): Promise<AttemptResult> {
    if (this.keyspace.get(keys.lock) !== undefined) {
      return Promise.resolve({ acquired: false, reason: 'contention', retryAfterMs: Math.max(0, this.keyspace.pttl(keys.lock)) });
    }
    this.keyspace.set(keys.lock, token, ttlMs);
    return Promise.resolve({ acquired: true, fencingToken: nextMemoryFence(this.keyspace, keys.fence, this.fenceTtlMs) });
  }

  extend(keys: LockKeys, token: string, ttlMs: number): Promise<boolean> {
    return Promise.resolve(this.keyspace.get(keys.lock) === token && this.keyspace.expire(keys.lock, ttlMs));
  }

  release(keys: LockKeys, token: string): Promise<boolean> {
    return Promise.resolve(this.keyspace.get(keys.lock) === token && this.keyspace.delete(keys.lock) === 1);
  }
}

/**
 * The next fencing token of the counter at `key`, as the scripts' next_fence: at least the clock in µs, and always
 * above the last token issued on that counter; the counter keeps `fenceTtlMs` (0: no TTL).
 */
export function nextMemoryFence(keyspace: MemoryKeyspace, key: string, fenceTtlMs: number): number {
  const last = keyspace.get<number>(key) ?? 0;
  const fencingToken = Math.max(last + 1, keyspace.now() * 1000);
  keyspace.set(key, fencingToken, fenceTtlMs > 0 ? fenceTtlMs : Infinity);
  return fencingToken;
}
