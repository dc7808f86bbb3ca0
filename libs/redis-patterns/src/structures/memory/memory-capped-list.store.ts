import type { MemoryKeyspace } from '../../core/memory/memory-keyspace';
import type { CappedListStore } from '../capped-list.store';

/** A list in memory: the encoded items, newest (the list's head) first. */
type List = string[];

/**
 * Capped lists kept in the module's {@link MemoryKeyspace} (`connection: 'memory://'`), for unit tests. Same keys,
 * same order (newest first), same replies as `RedisCappedListStore` and its push script: a push adds the items at
 * the head (the last given becomes index 0), keeps the newest `maxLength`, renews the TTL and resolves with the
 * trimmed length, in one step; `range` takes LRANGE's indexes (negative ones count from the oldest end, out-of-range
 * ones are clamped).
 *
 * What differs from Redis: lists live in this process only (another application instance, or another
 * `RedisPatternsModule` in the same process, sees none of them). Each call is atomic because it runs synchronously.
 */
export class MemoryCappedListStore implements CappedListStore {
  constructor(private readonly keyspace: MemoryKeyspace) {}

  async push(key: string, maxLength: number, ttlMs: number, items: readonly string[]): Promise<number> {
    // LPUSH a b c leaves c, b, a at the head; LTRIM 0 maxLength−1 keeps the newest.
    const list: List = [...items].reverse().concat(this.list(key) ?? []);
    if (list.length > maxLength) list.length = maxLength;
    this.keyspace.set(key, list, ttlMs);
    return list.length;
  }

  async range(key: string, start: number, stop: number): Promise<string[]> {
    const list = this.list(key) ?? [];
    const length = list.length;
    // LRANGE: negative indexes count from the end, a start before the head is 0, a stop past the tail is the tail.
    const from = Math.max(start < 0 ? length + start : start, 0);
    const to = Math.min(stop < 0 ? length + stop : stop, length - 1);
    return from > to ? [] : list.slice(from, to + 1);
  }

  async length(key: string): Promise<number> {
    return this.list(key)?.length ?? 0;
  }

  private list(key: string): List | undefined {
    return this.keyspace.get<List>(key);
  }
}
