import type { RedisExecutor } from '../core/scripts/redis-executor';
import type { LeaseKeys } from './lease-keys';
import type { LeaseStore } from './lease.store';
import { EXTEND_SHARED_LEASE_SCRIPT } from './scripts/extend-shared-lease.script';
import { RELEASE_SHARED_LEASE_SCRIPT } from './scripts/release-shared-lease.script';

/**
 * Extends and gives back shared leases — members of a sorted set of owner token → expiry in Redis ms (read leases,
 * semaphore permits) — on one Redis deployment: one round trip each. An extension is owner-checked in its script; a
 * release removes the owner's member (a ZREM when sent alone), whose expiry the lease's own validity judges (see
 * Lease.release) instead of a script reading the server clock.
 */
export class RedisSharedLeases implements LeaseStore {
  constructor(protected readonly redis: RedisExecutor) {}

  extend(keys: LeaseKeys, token: string, ttlMs: number): Promise<boolean> {
    return this.redis.run(EXTEND_SHARED_LEASE_SCRIPT, [keys.lease], [token, ttlMs]).then(isOne);
  }

  release(keys: LeaseKeys, token: string): Promise<boolean> {
    return this.redis.run(RELEASE_SHARED_LEASE_SCRIPT, [keys.lease], [token]).then(isOne);
  }
}

function isOne(reply: number): boolean {
  return reply === 1;
}
