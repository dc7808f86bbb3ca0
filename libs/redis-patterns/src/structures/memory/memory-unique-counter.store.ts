import type { MemoryKeyspace } from '../../core/memory/memory-keyspace';
import type { UniqueCounterStore } from '../unique-counter.store';

/** A counter in memory: the exact set of the items added to it. */
type Counter = Set<string>;

/**
 * Unique counters kept in the module's {@link MemoryKeyspace} (`connection: 'memory://'`), for unit tests: one exact
 * `Set` per counter key. Same keys and the same TTL rules as `RedisUniqueCounterStore` and its scripts (`add` and
 * `mergeInto` renew the counter's TTL; a merge creates its destination even from no source; a union count leaves no
 * key behind). A multi-key count or merge exchanges copies of the sets (`readRaw`) instead of HyperLogLog bytes.
 *
 * What differs from Redis: counts are exact, where HyperLogLog estimates with a standard error of about 0.81 %
 * (so `add` reports `true` exactly when the set grew, where PFADD may miss a new item that changes no register), and
 * memory grows with the number of distinct items instead of staying under 12 KB per counter. Counters live in this
 * process only (another application instance, or another `RedisPatternsModule` in the same process, sees none of
 * them). The accumulator and scratch keys are never written: an exact union needs no temporary key.
 */
export class MemoryUniqueCounterStore implements UniqueCounterStore<ReadonlySet<string>> {
  constructor(private readonly keyspace: MemoryKeyspace) {}

  async add(key: string, ttlMs: number, items: readonly string[]): Promise<boolean> {
    const counter = this.counter(key) ?? new Set<string>();
    const before = counter.size;
    for (const item of items) counter.add(item);
    this.keyspace.set(key, counter, ttlMs);
    // A missing counter always grows: there is at least one item, and PFADD reports creating a key as a change.
    return counter.size > before;
  }

  async count(key: string): Promise<number> {
    return this.counter(key)?.size ?? 0;
  }

  async readRaw(keys: readonly string[]): Promise<Array<ReadonlySet<string> | null>> {
    // Copies: an add after the read must not change what the read saw, as with the sketch bytes GET returns.
    return keys.map((key) => {
      const counter = this.counter(key);
      return counter ? new Set(counter) : null;
    });
  }

  async countUnion(_accumulator: string, _scratch: string, sketches: readonly ReadonlySet<string>[]): Promise<number> {
    return union(new Set(), sketches).size;
  }

  async mergeInto(dest: string, _scratch: string, ttlMs: number, sketches: readonly ReadonlySet<string>[]): Promise<number> {
    const counter = union(this.counter(dest) ?? new Set(), sketches);
    this.keyspace.set(dest, counter, ttlMs);
    return counter.size;
  }

  private counter(key: string): Counter | undefined {
    return this.keyspace.get<Counter>(key);
  }
}

function union(into: Counter, sets: readonly ReadonlySet<string>[]): Counter {
  for (const set of sets) for (const item of set) into.add(item);
  return into;
}
