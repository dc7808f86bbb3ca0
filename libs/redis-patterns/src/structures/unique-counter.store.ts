import type { RedisExecutor } from '../core/scripts/redis-executor';
import { HLL_ADD } from './scripts/hll-add.script';
import { HLL_FOLD } from './scripts/hll-fold.script';

/** How long a count's accumulator may live: the script that writes it deletes it, so this only bounds a leak. */
const ACCUMULATOR_TTL_MS = 10_000;

/**
 * Where distinct counters live. A multi-key count or merge reads each counter's contents (`readRaw`) and hands them
 * back to `countUnion` / `mergeInto` of the same store; `Contents` is opaque to callers. On Redis it is the
 * HyperLogLog sketch's raw bytes, so counters stored under different cluster slots can be folded into one key without
 * a cross-slot command; in memory it is a copy of the counter's exact set. Every method is one round trip
 * (`readRaw`: one per key, in parallel).
 */
export interface UniqueCounterStore<Contents = unknown> {
  /** Adds items and renews the counter's TTL; true when the estimate changed. */
  add(key: string, ttlMs: number, items: readonly string[]): Promise<boolean>;
  /** The estimate of one counter (0 when it does not exist). */
  count(key: string): Promise<number>;
  /** The contents of each counter, in order, as of its read; null for a counter that does not exist. */
  readRaw(keys: readonly string[]): Promise<Array<Contents | null>>;
  /**
   * The estimate of the union of `sketches` (read by this store's `readRaw`), folded in `accumulator` (deleted
   * afterwards) through `scratch`; both keys must share a slot.
   */
  countUnion(accumulator: string, scratch: string, sketches: readonly Contents[]): Promise<number>;
  /**
   * Merges `sketches` (read by this store's `readRaw`) into `dest` (keeping what it counts) through `scratch`, a key
   * in its slot, and renews its TTL; resolves with the new estimate of `dest`.
   */
  mergeInto(dest: string, scratch: string, ttlMs: number, sketches: readonly Contents[]): Promise<number>;
}

/** Injection token of the unique counters' {@link UniqueCounterStore}. */
export const UNIQUE_COUNTER_STORE = Symbol('RedisPatterns:UniqueCounterStore');

/**
 * Unique counters on Redis HyperLogLogs. Writes are scripts, so a counter never exists without its TTL, and every
 * temporary key of a fold is written and deleted within that one script.
 */
export class RedisUniqueCounterStore implements UniqueCounterStore<Buffer> {
  constructor(private readonly redis: RedisExecutor) {}

  async add(key: string, ttlMs: number, items: readonly string[]): Promise<boolean> {
    return (await this.redis.run(HLL_ADD, [key], [ttlMs, ...items])) === 1;
  }

  count(key: string): Promise<number> {
    return this.redis.call('pfcount', key);
  }

  readRaw(keys: readonly string[]): Promise<Array<Buffer | null>> {
    // Binary replies: a sketch's registers are arbitrary bytes, which a utf8 reply would corrupt. One GET per key,
    // as the keys may live in different slots.
    return Promise.all(keys.map((key) => this.redis.callBuffer<Buffer | null>('get', key)));
  }

  countUnion(accumulator: string, scratch: string, sketches: readonly Buffer[]): Promise<number> {
    return this.redis.run(HLL_FOLD, [accumulator, scratch], ['count', ACCUMULATOR_TTL_MS, ...sketches]);
  }

  mergeInto(dest: string, scratch: string, ttlMs: number, sketches: readonly Buffer[]): Promise<number> {
    return this.redis.run(HLL_FOLD, [dest, scratch], ['merge', ttlMs, ...sketches]);
  }
}
