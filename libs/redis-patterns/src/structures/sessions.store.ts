import type { RedisExecutor } from '../core/scripts/redis-executor';
import { SESSION_CREATE } from './scripts/session-create.script';
import { SESSION_TOUCH } from './scripts/session-touch.script';
import { SESSION_UPDATE } from './scripts/session-update.script';

/**
 * Where sessions live: one hash per session, holding the encoded user fields and the store's metadata (`m:ttl`,
 * `m:abs`). Every method is one round trip and rejects when the store cannot answer; callers never read a failure
 * as "no session" (fail closed).
 */
export interface SessionsStore {
  /**
   * Creates the session hash with its idle TTL and, when `lifeMs > 0`, its absolute deadline on the server clock.
   * `fields`: encoded field, value pairs. False, writing nothing, when the key already exists.
   */
  create(key: string, ttlMs: number, lifeMs: number, fields: readonly string[]): Promise<boolean>;
  /** Every field of the hash (metadata included); empty when the session does not exist. */
  readAll(key: string): Promise<Record<string, string>>;
  /** Sets the `set` field, value pairs and deletes the `remove` fields, keeping the TTL; false when the session does not exist. */
  update(key: string, set: readonly string[], remove: readonly string[]): Promise<boolean>;
  /**
   * Slides the idle TTL to `ttlMs` (0: the session's own), capped by its absolute deadline. Resolves with the TTL
   * applied in ms, or 0 when the session does not exist (or just passed its deadline and was deleted).
   */
  touch(key: string, ttlMs: number): Promise<number>;
  /** Deletes the session; true when it existed. */
  delete(key: string): Promise<boolean>;
}

/** Injection token of the sessions' {@link SessionsStore}. */
export const SESSIONS_STORE = Symbol('RedisPatterns:SessionsStore');

/**
 * Sessions on Redis. Create, update and touch are scripts: the existence check and the writes happen in one atomic
 * step, so a session never exists without its TTL and a slow update cannot resurrect a destroyed session.
 */
export class RedisSessionsStore implements SessionsStore {
  constructor(private readonly redis: RedisExecutor) {}

  async create(key: string, ttlMs: number, lifeMs: number, fields: readonly string[]): Promise<boolean> {
    return (await this.redis.run(SESSION_CREATE, [key], [ttlMs, lifeMs, ...fields])) === 1;
  }

  readAll(key: string): Promise<Record<string, string>> {
    // ioredis turns the HGETALL reply into an object (by command name, so for `call` too).
    return this.redis.call('hgetall', key);
  }

  async update(key: string, set: readonly string[], remove: readonly string[]): Promise<boolean> {
    return (await this.redis.run(SESSION_UPDATE, [key], [set.length / 2, ...set, ...remove])) === 1;
  }

  touch(key: string, ttlMs: number): Promise<number> {
    return this.redis.run(SESSION_TOUCH, [key], [ttlMs]);
  }

  async delete(key: string): Promise<boolean> {
    return (await this.redis.call<number>('del', key)) === 1;
  }
}
