import type { RedisExecutor } from '../core/scripts/redis-executor';
import { CAPPED_LIST_PUSH } from './scripts/capped-list-push.script';

/**
 * Where capped lists live: one list per name, newest item first, items already encoded. Every method is one round
 * trip.
 */
export interface CappedListStore {
  /**
   * Pushes `items` (oldest first: the last ends up at the head), keeps the newest `maxLength` and renews the TTL,
   * all at once; resolves with the length after trimming.
   */
  push(key: string, maxLength: number, ttlMs: number, items: readonly string[]): Promise<number>;
  /** Items from index `start` to `stop` inclusive, newest first (negative indexes count from the oldest end). */
  range(key: string, start: number, stop: number): Promise<string[]>;
  /** The number of items (0 when the list does not exist). */
  length(key: string): Promise<number>;
}

/** Injection token of the capped lists' {@link CappedListStore}. */
export const CAPPED_LIST_STORE = Symbol('RedisPatterns:CappedListStore');

/**
 * Capped lists on Redis lists. A push is one script, so a reader never sees a list over its cap and a list never
 * exists without its TTL.
 */
export class RedisCappedListStore implements CappedListStore {
  constructor(private readonly redis: RedisExecutor) {}

  push(key: string, maxLength: number, ttlMs: number, items: readonly string[]): Promise<number> {
    return this.redis.run(CAPPED_LIST_PUSH, [key], [maxLength, ttlMs, ...items]);
  }

  range(key: string, start: number, stop: number): Promise<string[]> {
    return this.redis.call('lrange', key, start, stop);
  }

  length(key: string): Promise<number> {
    return this.redis.call('llen', key);
  }
}
