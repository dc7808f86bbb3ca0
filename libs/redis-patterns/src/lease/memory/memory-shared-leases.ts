import type { MemoryKeyspace } from '../../core/memory/memory-keyspace';
import type { LeaseKeys } from '../lease-keys';
import type { LeaseStore } from '../lease.store';

/** One set of shared leases in memory: owner token → expiry (epoch ms), as the sorted set on Redis. */
type Holders = Map<string, number>;

/**
 * Shared leases (read leases, semaphore permits, waiting marks) in the module's memory mode, with the semantics of
 * the Redis scripts (KEEP_ALIVE_LUA, EXTEND/RELEASE_SHARED_LEASE_SCRIPT): a member whose expiry has passed is no
 * longer a holder, and the set's key lives as long as its latest member.
 */
export class MemorySharedLeases implements LeaseStore {
  constructor(protected readonly keyspace: MemoryKeyspace) {}

  /** The holders of a set whose lease has not expired (the others are dropped); empty when there are none. */
  live(key: string): ReadonlyMap<string, number> {
    const holders = this.keyspace.get<Holders>(key);
    if (!holders) return new Map();
    const now = this.keyspace.now();
    for (const [token, expiry] of holders) if (expiry <= now) holders.delete(token);
    return holders;
  }

  /** Adds (or moves) a member expiring `ttlMs` from now, and keeps the set's key alive as long as its latest member. */
  admit(key: string, token: string, ttlMs: number): void {
    const now = this.keyspace.now();
    let holders = this.keyspace.get<Holders>(key);
    if (!holders) this.keyspace.set(key, (holders = new Map()), ttlMs);
    holders.set(token, now + ttlMs);
    this.keyspace.expire(key, Math.max(...holders.values()) - now);
  }

  extend(keys: LeaseKeys, token: string, ttlMs: number): Promise<boolean> {
    const holders = this.keyspace.get<Holders>(keys.lease);
    const expiry = holders?.get(token);
    if (expiry === undefined) return Promise.resolve(false);
    if (expiry <= this.keyspace.now()) {
      holders!.delete(token);
      return Promise.resolve(false);
    }
    this.admit(keys.lease, token, ttlMs);
    return Promise.resolve(true);
  }

  release(keys: LeaseKeys, token: string): Promise<boolean> {
    const holders = this.keyspace.get<Holders>(keys.lease);
    if (!holders?.has(token)) return Promise.resolve(false);
    holders.delete(token);
    if (holders!.size === 0) this.keyspace.delete(keys.lease);
    // As Redis's ZREM: the member was there, expired or not (the lease's validity judges expiry).
    return Promise.resolve(true);
  }
}
