import type { RedisExecutor } from '../core/scripts/redis-executor';
import { type AttemptResult, toAttemptResult } from '../lease/attempt-result';
import type { LeaseStore } from '../lease/lease.store';
import { OrphanReleases } from '../lease/orphan-releases';
import { RELEASE_SHARED_LEASE_SCRIPT } from '../lease/scripts/release-shared-lease.script';
import { RedisSharedLeases } from '../lease/shared-leases';
import type { ReadWriteKeys } from './lock-keys';
import { ACQUIRE_READ_SCRIPT } from './scripts/acquire-read.script';
import { ACQUIRE_WRITE_SCRIPT } from './scripts/acquire-write.script';
import { SingleLeaseStore } from '../lease/single-lease.store';

/** A writer waiting for the lock: its id (the same for every attempt of one wait) and how long its mark lives. */
export interface WaitingWriter {
  readonly id: string;
  readonly markTtlMs: number;
}

/**
 * Where read-write locks live (one Redis deployment, or the module's memory). Acquisitions are one round trip and
 * reject when the store cannot decide; the caller fails closed.
 */
export interface ReadWriteStore {
  /** A read lease, unless a writer holds the lock or waits for it (writer preference). */
  acquireRead(keys: ReadWriteKeys, token: string, ttlMs: number): Promise<AttemptResult>;
  /** The write lease, unless readers or a writer hold the lock; then `waiting` (if given) is marked as waiting. */
  acquireWrite(keys: ReadWriteKeys, token: string, ttlMs: number, waiting?: WaitingWriter): Promise<AttemptResult>;
  /** Takes down a waiting writer's mark (it gave up), so readers need not wait for the mark to expire. */
  withdraw(keys: ReadWriteKeys, waiterId: string): Promise<void>;
  /** Extends and gives back read leases (`keys.lease`: the readers set). */
  readonly reads: LeaseStore;
  /** Extends and gives back write leases (`keys.lease`: the writer key). */
  readonly writes: LeaseStore;
}

/** Injection token of the {@link ReadWriteStore}. */
export const READ_WRITE_STORE = Symbol('RedisPatterns:ReadWriteStore');

/** Read-write locks on one Redis deployment (the lock section's connection): every script under the resource's tag. */
export class RedisReadWriteStore implements ReadWriteStore {
  readonly reads: LeaseStore;
  readonly writes: LeaseStore;
  private readonly orphans: OrphanReleases;

  constructor(
    private readonly redis: RedisExecutor,
    private readonly fenceTtlMs: number,
  ) {
    this.reads = new RedisSharedLeases(redis);
    // A write lease is a plain lock on the writer key: the lock's compare-and-PEXPIRE and compare-and-delete.
    this.writes = new SingleLeaseStore(redis, fenceTtlMs);
    this.orphans = new OrphanReleases(redis.client);
  }

  acquireRead(keys: ReadWriteKeys, token: string, ttlMs: number): Promise<AttemptResult> {
    return this.redis
      .run(ACQUIRE_READ_SCRIPT, [keys.writer, keys.readers, keys.waiting, keys.fence], [token, ttlMs, this.fenceTtlMs])
      .then(toAttemptResult, (error: unknown) => {
        this.orphans.release(token, error, () => this.reads.release({ lease: keys.readers, fence: keys.fence }, token));
        throw error;
      });
  }

  acquireWrite(keys: ReadWriteKeys, token: string, ttlMs: number, waiting?: WaitingWriter): Promise<AttemptResult> {
    const args = [token, ttlMs, this.fenceTtlMs, waiting?.id ?? '', waiting?.markTtlMs ?? 0];
    return this.redis
      .run(ACQUIRE_WRITE_SCRIPT, [keys.writer, keys.readers, keys.waiting, keys.fence], args)
      .then(toAttemptResult, (error: unknown) => {
        this.orphans.release(token, error, () => this.writes.release({ lease: keys.writer, fence: keys.fence }, token));
        throw error;
      });
  }

  async withdraw(keys: ReadWriteKeys, waiterId: string): Promise<void> {
    await this.redis.run(RELEASE_SHARED_LEASE_SCRIPT, [keys.waiting], [waiterId]);
  }
}
