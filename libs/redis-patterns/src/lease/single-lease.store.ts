import type { RedisExecutor } from '../core/scripts/redis-executor';
import { type AttemptResult, toAttemptResult } from './attempt-result';
import type { LeaseKeys } from './lease-keys';
import { OrphanReleases } from './orphan-releases';
import type { ExclusiveLeaseStore } from './lease.store';
import { ACQUIRE_LEASE_SCRIPT } from './scripts/acquire-lease.script';
import { EXTEND_LEASE_SCRIPT } from './scripts/extend-lease.script';
import { RELEASE_LEASE_SCRIPT } from './scripts/release-lease.script';

/** Locks on one Redis deployment (standalone, sentinel-managed or cluster): acquire = 1 round trip, release = 1. */
export class SingleLeaseStore implements ExclusiveLeaseStore {
  private readonly orphans: OrphanReleases;

  constructor(
    private readonly redis: RedisExecutor,
    private readonly fenceTtlMs: number,
    private readonly replication: { readonly replicas: number; readonly timeoutMs: number } = { replicas: 0, timeoutMs: 0 },
  ) {
    this.orphans = new OrphanReleases(redis.client);
  }

  attempt(keys: LeaseKeys, token: string, ttlMs: number): Promise<AttemptResult> {
    const cleanUp = (error: unknown): never => {
      this.orphans.release(token, error, () => this.release(keys, token));
      throw error;
    };
    if (this.replication.replicas > 0) return this.attemptWithWait(keys, token, ttlMs).catch(cleanUp);
    // The common case stays one promise deep: no async wrappers on the hot path.
    return this.redis.run(ACQUIRE_LEASE_SCRIPT, [keys.lease, keys.fence], [token, ttlMs, this.fenceTtlMs]).then(toAttemptResult, cleanUp);
  }

  private async attemptWithWait(keys: LeaseKeys, token: string, ttlMs: number): Promise<AttemptResult> {
    // WAIT must follow the script on the same connection: one round trip plus the replication delay.
    const { replicas, timeoutMs } = this.replication;
    const keysOf = [keys.lease, keys.fence];
    const args = [token, ttlMs, this.fenceTtlMs];
    const { reply, acks, waitError } = await this.redis.runThenWait(ACQUIRE_LEASE_SCRIPT, keysOf, args, replicas, timeoutMs);
    const result = toAttemptResult(reply);
    if (!result.acquired) return result;
    if (waitError || acks < replicas) {
      // Not durable enough to survive a failover: give it back rather than hand out a lock a promoted replica
      // would not know about.
      await this.release(keys, token);
      if (waitError) throw waitError;
      return { acquired: false, reason: 'replication', retryAfterMs: 0 };
    }
    return result;
  }

  extend(keys: LeaseKeys, token: string, ttlMs: number): Promise<boolean> {
    return this.redis.run(EXTEND_LEASE_SCRIPT, [keys.lease], [token, ttlMs]).then(isOne);
  }

  release(keys: LeaseKeys, token: string): Promise<boolean> {
    return this.redis.run(RELEASE_LEASE_SCRIPT, [keys.lease], [token]).then(isOne);
  }
}

function isOne(reply: number): boolean {
  return reply === 1;
}
