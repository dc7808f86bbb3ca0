import { Injectable } from '@nestjs/common';
import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { CacheRuntime } from './cache.runtime';
import type { CacheEngine } from './engine/cache-engine';
import type { Fetched, FoundEntry } from './engine/cache-entry';
import { type CacheStats, isRefusal } from './engine/cache-health';
import type { CacheKeys } from './engine/cache-keys';
import { buildPolicy, checkKey, checkTags, type EntryOptions, type EntryPolicy, type WrapOptions } from './engine/entry-policy';
import { invalidateTags } from './engine/tag-invalidation';
import { NEAR_MISS } from './near/near-cache';
import type { NearCacheStats } from './near/l1-store';
import { secondsSpelling, ttlUnitWarning } from './ttl-units';

/** Keys per SCAN call and deletions in flight of {@link CacheService.clear}. */
const CLEAR_SCAN_COUNT = 500;
const CLEAR_CONCURRENCY = 100;

/** Entry keys remembered by CacheService (bounded: cleared when full). */
const MAX_REMEMBERED_KEYS = 10_000;

/**
 * Cache-aside on Redis: `get`/`getMany`/`set`/`del`, `wrap` with stampede control, and tag invalidation.
 *
 * Every write carries a TTL (`cache.defaultTtl` or the call's `ttl`, in seconds, shortened by jitter), values are
 * JSON with typed Dates, BigInts, Buffers, Maps and Sets, and a hit costs one GET. The cache fails open: when Redis
 * is slow or down, reads are misses and writes are skipped within the command timeout, logged (rate-limited) and
 * counted in {@link CacheService.stats}; nothing reaches the caller because of the cache. A command Redis refuses for
 * a configuration reason (`RedisRefusedError`: an ACL without a permission, a disabled command) is not an outage:
 * reads and `wrap` still serve from the source but log it at error level and count it in `stats().refusals`, and
 * explicit writes (`set`, `setMany`, `del`, `invalidateTags`) reject with it.
 *
 * @example
 * const user = await cache.wrap(`user:${id}`, () => users.find(id), { ttl: 300, tags: [`user:${id}`] });
 * await cache.invalidateTags(`user:${id}`);
 */
@Injectable()
export class CacheService {
  private readonly engine: CacheEngine;
  private readonly keys: CacheKeys;
  private readonly entryKeys = new Map<string, string>();

  /** Created by the module's dependency injection; not part of the public API. @internal */
  constructor(private readonly runtime: CacheRuntime) {
    this.engine = runtime.engine;
    this.keys = runtime.keys;
  }

  /**
   * The cached value, or `undefined` on a miss (or when Redis is unavailable). One GET; with the near cache on,
   * an L1 hit makes no round trip and an L1 miss is GET + PTTL in one round trip.
   */
  get<T = unknown>(key: string): Promise<T | undefined> {
    let entry: string;
    try {
      entry = this.entryKey(key);
    } catch (error) {
      return Promise.reject(error);
    }
    if (this.runtime.defaults.near) {
      const value = this.runtime.near.get(entry);
      if (value !== NEAR_MISS) {
        this.engine.health.answered('near_hit');
        return Promise.resolve(value as T);
      }
      return this.runtime.near.read(this.engine, entry).then(this.countRead) as Promise<T | undefined>;
    }
    return this.engine.read(entry, false).then(this.countRead) as Promise<T | undefined>;
  }

  // The entry key of a user key, remembered: building it escapes and concatenates, and the new string must be hashed
  // again by every Map lookup (an L1 hit is one). A repeated key, often the same string, then costs one lookup.
  private entryKey(key: string): string {
    let entry = this.entryKeys.get(key);
    if (entry === undefined) {
      entry = this.keys.entry(checkKey(key));
      if (this.entryKeys.size >= MAX_REMEMBERED_KEYS) this.entryKeys.clear();
      this.entryKeys.set(key, entry);
    }
    return entry;
  }

  private readonly countRead = (found: FoundEntry | undefined): unknown => {
    if (found === undefined || found.stale) {
      this.engine.health.answered('miss');
      return undefined;
    }
    this.engine.health.answered('hit');
    return found.value;
  };

  /** Several values in one round trip (one MGET; per-key GETs pipelined per node on a cluster), in key order. */
  async getMany<T = unknown>(keys: readonly string[]): Promise<Array<T | undefined>> {
    if (!Array.isArray(keys)) throw new InvalidArgumentError('keys', 'expected an array of keys');
    const entries = keys.map((key, i) => this.keys.entry(checkKey(key, `keys[${i}]`)));
    const health = this.engine.health;
    if (entries.length === 0 || !health.available(entries[0])) return entries.map(() => undefined);
    let raws: Array<string | null>;
    try {
      raws = await this.engine.store.getMany(entries);
    } catch (error) {
      health.failed('read', error);
      return entries.map(() => undefined);
    }
    // interpret() answers synchronously for plain entries and with a promise for compressed ones: one await for both.
    // eslint-disable-next-line @typescript-eslint/await-thenable
    const found = await Promise.all(raws.map((raw, i) => (raw === null ? undefined : this.engine.interpret(entries[i], raw))));
    return found.map((entry) => {
      if (entry === undefined || entry.stale) {
        health.answered('miss');
        return undefined;
      }
      health.answered('hit');
      return entry.value as T;
    });
  }

  /**
   * Stores a value with a TTL (seconds; default `cache.defaultTtl`) and optional tags. Resolves with whether it was
   * written: `false` when Redis is unavailable (fail-open) or a concurrent `invalidateTags` of one of its tags
   * overtook the write. Throws `CacheSerializationError` for values that cannot round-trip, `CacheValueTooLargeError`
   * above `cache.maxValueBytes`, `InvalidArgumentError` for a bad key or option (`undefined` is refused), and
   * `RedisRefusedError` when Redis refuses the write for a configuration reason.
   */
  async set(key: string, value: unknown, options?: EntryOptions): Promise<boolean> {
    const entry = this.entryKey(key);
    if (value === undefined) throw new InvalidArgumentError('value', 'undefined is not cached (use del to remove a key)');
    const policy = this.policyOf(options, 'set', 'options');
    return this.engine.write(entry, value, policy, { strict: true });
  }

  /**
   * Stores several values, each with its own options (TTL in seconds, tags), concurrently: their writes share round
   * trips (one pipeline per node). Resolves with whether each was written, in order; throws as {@link CacheService.set}
   * for an invalid key, value or option, before anything is written.
   */
  async setMany(entries: ReadonlyArray<{ key: string; value: unknown; options?: EntryOptions }>): Promise<boolean[]> {
    if (!Array.isArray(entries)) throw new InvalidArgumentError('entries', 'expected an array of { key, value, options? }');
    const writes = entries.map(({ key, value, options }, i) => {
      if (value === undefined) throw new InvalidArgumentError(`entries[${i}].value`, 'undefined is not cached (use del to remove a key)');
      return {
        entry: this.keys.entry(checkKey(key, `entries[${i}].key`)),
        value,
        policy: this.policyOf(options, 'setMany', `entries[${i}].options`),
      };
    });
    return Promise.all(writes.map(({ entry, value, policy }) => this.engine.write(entry, value, policy, { strict: true })));
  }

  /** {@link CacheService.del} for an array of keys. */
  delMany(keys: readonly string[]): Promise<number> {
    if (!Array.isArray(keys)) return Promise.reject(new InvalidArgumentError('keys', 'expected an array of keys'));
    return this.del(...keys);
  }

  /**
   * Deletes every entry whose key starts with `namespace` (e.g. `'users:'`), on every master of a cluster: SCAN with
   * MATCH, then the entries deleted as by {@link CacheService.del} (a fill loading meanwhile does not write back), at
   * most `SCAN COUNT` 500 keys per call and 100 deletions in flight. Entries written while it runs may survive.
   * Resolves with the number deleted. Unlike reads and writes it does not fail open: it rejects when Redis cannot
   * answer, so a caller knows the namespace may not be clear.
   *
   * @throws InvalidArgumentError for an empty namespace (it would clear the whole cache: use a prefix) or one longer
   *   than 100 characters.
   */
  async clear(namespace: string): Promise<number> {
    if (typeof namespace !== 'string' || namespace.length === 0 || namespace.length > 100) {
      throw new InvalidArgumentError('namespace', 'expected a key prefix of 1 to 100 characters');
    }
    const { store } = this.engine;
    const lockTtlMs = this.runtime.settings.lockTtlMs;
    let deleted = 0;
    for await (const page of store.entriesUnder(this.keys.entriesStartingWith(namespace), CLEAR_SCAN_COUNT)) {
      for (let i = 0; i < page.length; i += CLEAR_CONCURRENCY) {
        const results = await Promise.all(page.slice(i, i + CLEAR_CONCURRENCY).map((entry) => store.del(entry, lockTtlMs)));
        deleted += results.filter(Boolean).length;
      }
    }
    return deleted;
  }

  /**
   * Deletes keys (one DEL per key, so keys in any slot are fine); resolves with how many existed (0 when Redis is
   * unavailable). Rejects with `RedisRefusedError` when Redis refuses the delete for a configuration reason.
   */
  async del(...keys: string[]): Promise<number> {
    const entries = keys.map((key, i) => this.keys.entry(checkKey(key, `keys[${i}]`)));
    const health = this.engine.health;
    if (entries.length === 0 || !health.available(entries[0])) return 0;
    try {
      const results = await Promise.all(entries.map((entry) => this.engine.store.del(entry, this.runtime.settings.lockTtlMs)));
      return results.filter(Boolean).length;
    } catch (error) {
      health.failed('delete', error);
      if (isRefusal(error)) throw error;
      return 0;
    }
  }

  /**
   * Cache-aside with stampede control: the cached value, or `loader()`'s result, stored with the options' TTL and
   * tags. Concurrent callers in this process share one loader call; across instances a per-key fill lock lets one
   * load while the others wait (polling with backoff, at most `cache.lockWaitMs`, then they load themselves).
   * With `staleTtl`, a value past its fresh TTL is returned at once while one background refresh runs; with
   * `earlyRefresh`, hot keys are refreshed shortly before they expire (XFetch). With `graceMs`, a loader that throws
   * is answered by the key's last value (kept that long past its TTL); `softTimeoutMs` answers with that value when the
   * loader is slow, and `hardTimeoutMs` stops waiting for it (`CacheLoadTimeoutError` when no value is at hand);
   * `forceFresh` skips the read. Other loader errors propagate; `undefined` results are returned but not cached.
   */
  async wrap<T>(key: string, loader: () => Promise<T> | T, options?: WrapOptions): Promise<T> {
    return (await this.wrapWithStatus(key, loader, options)).value;
  }

  /** {@link CacheService.wrap}, also telling whether the value was a `'hit'`, a `'miss'` (loaded) or `'stale'`. */
  wrapWithStatus<T>(key: string, loader: () => Promise<T> | T, options?: WrapOptions): Promise<Fetched<T>> {
    let entry: string;
    let policy: EntryPolicy;
    try {
      entry = this.entryKey(key);
      if (typeof loader !== 'function') throw new InvalidArgumentError('loader', 'expected a function returning the value');
      policy = this.policyOf(options, 'wrap', 'options');
    } catch (error) {
      return Promise.reject(error);
    }
    if (policy.near && this.engine.near === undefined) void this.runtime.startNear();
    return this.engine.fetch(entry, async () => loader(), policy, undefined, options?.forceFresh === true);
  }

  // Validates a call's options (either TTL spelling) into its policy; a seconds TTL that reads like ms is logged once
  // per method, option and value: the call site is code, so its next calls would say nothing new.
  private policyOf(options: WrapOptions | undefined, method: string, argument: string): EntryPolicy {
    const policy = buildPolicy(secondsSpelling(options, argument), this.runtime.defaults, argument);
    if (options !== undefined) {
      for (const field of ['ttl', 'staleTtl'] as const) {
        const value = (options as Record<string, unknown>)[field];
        if (typeof value !== 'number' || value < 1000) continue;
        const warning = ttlUnitWarning(`CacheService.${method} ${argument.replace(/\[\d+\]/, '[…]')}.${field}`, field, value);
        if (warning) this.engine.health.warnOnce(`ttl-unit|${method}|${field}|${value}`, warning);
      }
    }
    return policy;
  }

  /**
   * Deletes every entry carrying any of the tags; resolves with the number deleted. After it resolves, no read
   * returns a value written before it began, including values whose write raced it. Cluster-safe: no command
   * touches two slots. Fails open on an outage (resolves with what was deleted); rejects with `RedisRefusedError`
   * when Redis refuses it for a configuration reason.
   */
  async invalidateTags(...tags: string[]): Promise<number> {
    const checked = checkTags(tags, 'tags');
    return invalidateTags(this.engine.store, this.engine.health, checked, this.runtime.tagEpochTtlMs, true);
  }

  /**
   * Counters since startup: hits, misses, stale hits, loads, refreshes, Redis errors, bypassed calls, skipped writes,
   * refused commands.
   */
  stats(): CacheStats {
    return { ...this.engine.health.stats };
  }

  /** Near-cache (L1) counters and size: hits, misses, evictions, invalidations, clears, entries and bytes held. */
  nearStats(): NearCacheStats {
    return this.runtime.near.stats();
  }
}
