import type { MemoryKeyspace } from '../../core/memory/memory-keyspace';
import type { AttemptResult } from '../attempt-result';
import type { LeaseKeys } from '../lease-keys';
import { nextMemoryFence } from './memory-fence';
import type { ExclusiveLeaseStore } from '../lease.store';

/**
 * Locks of the module's memory mode (`connection: 'memory://'`): the same keys, owner tokens, TTLs and fencing
 * tokens as on Redis, so `using()`, extension, loss (the AbortSignal) and `@WithLock` behave as they do there.
 * Mutual exclusion holds within this process only. Each operation runs to completion before any other (one
 * thread), which is what the scripts' atomicity gives on Redis.
 */
export class MemoryLeaseStore implements ExclusiveLeaseStore {
  constructor(
    private readonly keyspace: MemoryKeyspace,
    private readonly fenceTtlMs: number,
  ) {}

  attempt(keys: LeaseKeys, token: string, ttlMs: number): Promise<AttemptResult> {
    if (this.keyspace.get(keys.lease) !== undefined) {
      return Promise.resolve({ acquired: false, reason: 'contention', retryAfterMs: Math.max(0, this.keyspace.pttl(keys.lease)) });
    }
    this.keyspace.set(keys.lease, token, ttlMs);
    return Promise.resolve({ acquired: true, fencingToken: nextMemoryFence(this.keyspace, keys.fence, this.fenceTtlMs) });
  }

  extend(keys: LeaseKeys, token: string, ttlMs: number): Promise<boolean> {
    return Promise.resolve(this.keyspace.get(keys.lease) === token && this.keyspace.expire(keys.lease, ttlMs));
  }

  release(keys: LeaseKeys, token: string): Promise<boolean> {
    return Promise.resolve(this.keyspace.get(keys.lease) === token && this.keyspace.delete(keys.lease) === 1);
  }
}
