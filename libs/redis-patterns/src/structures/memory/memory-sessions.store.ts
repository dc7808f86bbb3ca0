import type { MemoryKeyspace } from '../../core/memory/memory-keyspace';
import type { SessionsStore } from '../sessions.store';

/** A session hash in memory: field → value, exactly the strings HSET would store. */
type SessionHash = Map<string, string>;

/** The metadata fields the Redis scripts keep next to the user's `f:` fields (see scripts/session-*.script.ts). */
const IDLE_TTL = 'm:ttl';
const DEADLINE = 'm:abs';

/**
 * Sessions kept in the module's {@link MemoryKeyspace} (`connection: 'memory://'`), for unit tests. Same keys, same
 * hash layout (`f:` fields, `m:ttl`, `m:abs`), same replies and TTL rules as `RedisSessionsStore` (its scripts):
 * `create` never overwrites and always sets a TTL (capped by `maxLifetimeMs`), `update` keeps the TTL and never
 * recreates a destroyed session, `touch` slides the idle TTL but never past the absolute deadline.
 *
 * What differs from Redis: the sessions live in this process only (another application instance, or another
 * `RedisPatternsModule` in the same process, sees none of them), and the deadline is on this process's clock
 * ({@link MemoryKeyspace.now}) rather than the server's. Each call is atomic because it runs synchronously.
 */
export class MemorySessionsStore implements SessionsStore {
  constructor(private readonly keyspace: MemoryKeyspace) {}

  async create(key: string, ttlMs: number, lifeMs: number, fields: readonly string[]): Promise<boolean> {
    if (this.keyspace.get(key) !== undefined) return false;
    const hash: SessionHash = new Map([[IDLE_TTL, String(ttlMs)]]);
    for (let i = 0; i < fields.length; i += 2) hash.set(fields[i], fields[i + 1]);
    let ttl = ttlMs;
    if (lifeMs > 0) {
      hash.set(DEADLINE, String(Math.floor(this.keyspace.now()) + lifeMs));
      ttl = Math.min(ttl, lifeMs);
    }
    this.keyspace.set(key, hash, ttl);
    return true;
  }

  async readAll(key: string): Promise<Record<string, string>> {
    return Object.fromEntries(this.hash(key) ?? []);
  }

  async update(key: string, set: readonly string[], remove: readonly string[]): Promise<boolean> {
    const hash = this.hash(key);
    if (!hash) return false;
    // In place: the key keeps its TTL, as HSET/HDEL do. The metadata fields are never removed (user fields are
    // `f:`-prefixed), so the hash never empties, just as in Redis.
    for (let i = 0; i < set.length; i += 2) hash.set(set[i], set[i + 1]);
    for (const field of remove) hash.delete(field);
    return true;
  }

  async touch(key: string, ttlMs: number): Promise<number> {
    const hash = this.hash(key);
    const idle = hash?.get(IDLE_TTL);
    if (!hash || idle === undefined) return 0;
    let ttl = ttlMs === 0 ? Number(idle) : ttlMs;
    const deadline = hash.get(DEADLINE);
    if (deadline !== undefined) {
      const left = Number(deadline) - Math.floor(this.keyspace.now());
      if (left <= 0) {
        this.keyspace.delete(key);
        return 0;
      }
      ttl = Math.min(ttl, left);
    }
    this.keyspace.expire(key, ttl);
    return ttl;
  }

  async delete(key: string): Promise<boolean> {
    return this.keyspace.delete(key) === 1;
  }

  private hash(key: string): SessionHash | undefined {
    return this.keyspace.get<SessionHash>(key);
  }
}
