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
    // As the acquire script: at least the clock in µs, and always above the last token issued for the resource.
    const last = this.keyspace.get<number>(keys.fence) ?? 0;
    const fencingToken = Math.max(last + 1, this.keyspace.now() * 1000);
    this.keyspace.set(keys.fence, fencingToken, this.fenceTtlMs > 0 ? this.fenceTtlMs : Infinity);
    return Promise.resolve({ acquired: true, fencingToken });
  }

  extend(keys: LockKeys, token: string, ttlMs: number): Promise<boolean> {
    return Promise.resolve(this.keyspace.get(keys.lock) === token && this.keyspace.expire(keys.lock, ttlMs));
  }

  release(keys: LockKeys, token: string): Promise<boolean> {
    return Promise.resolve(this.keyspace.get(keys.lock) === token && this.keyspace.delete(keys.lock) === 1);
  }
}
