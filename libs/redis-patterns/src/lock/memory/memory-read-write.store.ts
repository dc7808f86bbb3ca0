import type { MemoryKeyspace } from '../../core/memory/memory-keyspace';
import type { AttemptResult } from '../../lease/attempt-result';
import type { LeaseStore } from '../../lease/lease.store';
import { nextMemoryFence } from '../../lease/memory/memory-fence';
import { MemorySharedLeases } from '../../lease/memory/memory-shared-leases';
import type { ReadWriteKeys } from '../lock-keys';
import type { ReadWriteStore, WaitingWriter } from '../read-write-lock.store';
import { MemoryLeaseStore } from '../../lease/memory/memory-lease.store';

/**
 * Read-write locks of the module's memory mode, with the semantics of ACQUIRE_READ_SCRIPT and ACQUIRE_WRITE_SCRIPT
 * (writer preference, waiting marks, the mutex's fencing counter) under the same keys. Exclusion holds within this
 * process only.
 */
export class MemoryReadWriteStore implements ReadWriteStore {
  readonly reads: MemorySharedLeases;
  readonly writes: LeaseStore;

  constructor(
    private readonly keyspace: MemoryKeyspace,
    private readonly fenceTtlMs: number,
  ) {
    this.reads = new MemorySharedLeases(keyspace);
    this.writes = new MemoryLeaseStore(keyspace, fenceTtlMs);
  }

  acquireRead(keys: ReadWriteKeys, token: string, ttlMs: number): Promise<AttemptResult> {
    const writer = this.keyspace.pttl(keys.writer);
    if (writer !== -2) return contention(writer);
    if (this.reads.live(keys.waiting).size > 0) return contention(0);
    this.reads.admit(keys.readers, token, ttlMs);
    return this.granted(keys);
  }

  acquireWrite(keys: ReadWriteKeys, token: string, ttlMs: number, waiting?: WaitingWriter): Promise<AttemptResult> {
    let retryAfterMs = this.keyspace.pttl(keys.writer);
    if (retryAfterMs === -2) {
      const readers = this.reads.live(keys.readers);
      if (readers.size === 0) {
        this.keyspace.set(keys.writer, token, ttlMs);
        if (waiting) void this.withdraw(keys, waiting.id);
        return this.granted(keys);
      }
      retryAfterMs = Math.ceil(Math.max(...readers.values()) - this.keyspace.now());
    }
    if (waiting) this.reads.admit(keys.waiting, waiting.id, waiting.markTtlMs);
    return contention(retryAfterMs);
  }

  async withdraw(keys: ReadWriteKeys, waiterId: string): Promise<void> {
    await this.reads.release({ lease: keys.waiting, fence: keys.fence }, waiterId);
  }

  private granted(keys: ReadWriteKeys): Promise<AttemptResult> {
    return Promise.resolve({ acquired: true, fencingToken: nextMemoryFence(this.keyspace, keys.fence, this.fenceTtlMs) });
  }
}

function contention(retryAfterMs: number): Promise<AttemptResult> {
  return Promise.resolve({ acquired: false, reason: 'contention', retryAfterMs: Math.max(0, retryAfterMs) });
}
