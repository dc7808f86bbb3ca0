import type { RedisExecutor } from '../core/scripts/redis-executor';
import { type AttemptResult, toAttemptResult } from '../lease/attempt-result';
import type { LeaseKeys } from '../lease/lease-keys';
import type { LeaseStore } from '../lease/lease.store';
import { OrphanReleases } from '../lease/orphan-releases';
import { RedisSharedLeases } from '../lease/shared-leases';
import { ACQUIRE_PERMIT_SCRIPT } from './scripts/acquire-permit.script';

/**
 * Where semaphores live (one Redis deployment, or the module's memory): permits are shared leases, extended and
 * given back owner-checked. Every method is one round trip and rejects when the store cannot decide; callers fail
 * closed.
 */
export interface SemaphoreStore extends LeaseStore {
  /** One permit, unless `permits` unexpired holders have one already. */
  attempt(keys: LeaseKeys, token: string, ttlMs: number, permits: number): Promise<AttemptResult>;
}

/** Injection token of the {@link SemaphoreStore}. */
export const SEMAPHORE_STORE = Symbol('RedisPatterns:SemaphoreStore');

/** Semaphores on the lock section's connection (standalone, sentinel-managed or cluster). */
export class RedisSemaphoreStore extends RedisSharedLeases implements SemaphoreStore {
  private readonly orphans: OrphanReleases;

  constructor(
    redis: RedisExecutor,
    private readonly fenceTtlMs: number,
  ) {
    super(redis);
    this.orphans = new OrphanReleases(redis.client);
  }

  attempt(keys: LeaseKeys, token: string, ttlMs: number, permits: number): Promise<AttemptResult> {
    return this.redis
      .run(ACQUIRE_PERMIT_SCRIPT, [keys.lease, keys.fence], [token, ttlMs, permits, this.fenceTtlMs])
      .then(toAttemptResult, (error: unknown) => {
        // A timed-out acquisition may still take a permit when the server wakes: give it back behind it.
        this.orphans.release(token, error, () => this.release(keys, token));
        throw error;
      });
  }
}
