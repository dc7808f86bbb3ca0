import { type BeforeApplicationShutdown, Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { clientName } from '../core/connections/create-client';
import { type RedisClient, RedisConnections } from '../core/connections/redis-connections';
import { DEFAULT_CONNECTION } from '../core/options/resolve-options';
import { InvalidOptionsError } from '../errors/invalid-options.error';
import { describeValue } from '../core/options/option-checks';
import { KeyBuilder } from '../core/keys/key-builder';
import type { ResolvedRedisPatternsOptions } from '../redis-patterns.options';
import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { RESOLVED_OPTIONS } from '../redis-patterns.constants';
import { type CacheSettings, resolveCacheSettings } from './cache-options';
import { CacheEngine, type Fetched, type FoundEntry } from './engine/cache-engine';
import { CacheHealth, type CacheStats } from './engine/cache-health';
import { CacheKeys } from './engine/cache-keys';
import { CacheStore } from './engine/cache-store';
import { buildPolicy, checkKey, checkTags, type EntryOptions, type EntryPolicy, type WrapOptions } from './engine/entry-policy';
import { invalidateTags } from './engine/tag-invalidation';
import { NEAR_MISS, NearCache } from './near/near-cache';
import type { NearCacheStats } from './near/l1-store';

/** Entry keys remembered by CacheService (bounded: cleared when full). */
const MAX_REMEMBERED_KEYS = 10_000;

/**
 * Cache-aside on Redis: `get`/`getMany`/`set`/`del`, `wrap` with stampede control, and tag invalidation.
 *
 * Every write carries a TTL (`cache.defaultTtl` or the call's `ttl`, in seconds, shortened by jitter), values are
 * JSON with typed Dates, BigInts, Buffers, Maps and Sets, and a hit costs one GET. The cache fails open: when Redis
 * is slow or down, reads are misses and writes are skipped within the command timeout, logged (rate-limited) and
 * counted in {@link CacheService.stats}; nothing reaches the caller because of the cache.
 *
 * @example
 * const user = await cache.wrap(`user:${id}`, () => users.find(id), { ttl: 300, tags: [`user:${id}`] });
 * await cache.invalidateTags(`user:${id}`);
 */
@Injectable()
export class CacheService implements OnModuleInit, BeforeApplicationShutdown {
  /** The machinery shared with the cache decorators. */
  readonly engine: CacheEngine;
  readonly keys: CacheKeys;
  readonly settings: CacheSettings;
  private readonly defaults: { ttlMs: number; jitter: number; near: boolean };
  /** The in-process L1 (`cache.nearCache`); started when enabled for the module or by a decorator. */
  readonly near: NearCache;
  private readonly connectTimeoutMs: number;
  /**
   * Minimum lifetime of a tag's epoch after an invalidation: a fill that read the old epoch before loading must
   * still see the bump when it registers (so longer than a lock wait plus a lock TTL, twice over).
   */
  readonly tagEpochTtlMs: number;
  private readonly shutdownTimeoutMs: number;
  private readonly entryKeys = new Map<string, string>();
  private readonly data: RedisClient;
  private readonly connectionReady = (): void => this.engine.health.connectionReady();

  constructor(@Inject(RESOLVED_OPTIONS) options: ResolvedRedisPatternsOptions, connections: RedisConnections, keyBuilder: KeyBuilder) {
    this.settings = resolveCacheSettings(options.cache);
    this.keys = new CacheKeys(keyBuilder);
    const health = new CacheHealth(this.settings, options.logger ?? new Logger('RedisPatterns:Cache'));
    const data = connections.get(this.settings.connection);
    this.data = data;
    data.on('ready', this.connectionReady);
    this.engine = new CacheEngine(new CacheStore(data, this.keys), health, this.settings);
    this.defaults = { ttlMs: this.settings.defaultTtlMs, jitter: this.settings.jitter, near: this.settings.nearCache.enabled };
    this.near = new NearCache(this.settings.nearCache, {
      data,
      prefix: `${keyBuilder.key('cache')}:`,
      connectionName: clientName(options.keyPrefix, this.settings.connection ?? DEFAULT_CONNECTION, 'near-cache'),
      logger: options.logger ?? new Logger('RedisPatterns:Cache'),
    });
    this.connectTimeoutMs = options.connectTimeoutMs;
    this.shutdownTimeoutMs = options.shutdownTimeoutMs;
    this.tagEpochTtlMs = Math.max(60_000, 2 * (this.settings.lockTtlMs + this.settings.lockWaitMs));
  }

  /** Starts the near cache's invalidation listener when `cache.nearCache.enabled` (L1 stays bypassed until it is up). */
  async onModuleInit(): Promise<void> {
    if (this.defaults.near) await this.startNear();
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
    if (this.defaults.near) {
      const value = this.near.get(entry);
      if (value !== NEAR_MISS) {
        this.engine.health.stats.hits++;
        return Promise.resolve(value as T);
      }
      return this.near.read(this.engine, entry).then(this.countRead) as Promise<T | undefined>;
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
      this.engine.health.stats.misses++;
      return undefined;
    }
    this.engine.health.stats.hits++;
    return found.value;
  };

  /** Several values in one round trip (one MGET; per-key GETs pipelined per node on a cluster), in key order. */
  async getMany<T = unknown>(keys: readonly string[]): Promise<Array<T | undefined>> {
    if (!Array.isArray(keys)) throw new InvalidArgumentError('keys', 'expected an array of keys');
    const entries = keys.map((key, i) => this.keys.entry(checkKey(key, `keys[${i}]`)));
    const health = this.engine.health;
    if (entries.length === 0 || !health.available()) return entries.map(() => undefined);
    let raws: Array<string | null>;
    try {
      raws = await this.engine.store.getMany(entries);
      health.succeeded();
    } catch (error) {
      health.failed('read', error);
      return entries.map(() => undefined);
    }
    // interpret() answers synchronously for plain entries and with a promise for compressed ones: one await for both.
    // eslint-disable-next-line @typescript-eslint/await-thenable
    const found = await Promise.all(raws.map((raw, i) => (raw === null ? undefined : this.engine.interpret(entries[i], raw))));
    return found.map((entry) => {
      if (entry === undefined || entry.stale) {
        health.stats.misses++;
        return undefined;
      }
      health.stats.hits++;
      return entry.value as T;
    });
  }

  /**
   * Stores a value with a TTL (seconds; default `cache.defaultTtl`) and optional tags. Resolves with whether it was
   * written: `false` when Redis is unavailable (fail-open) or a concurrent `invalidateTags` of one of its tags
   * overtook the write. Throws `CacheSerializationError` for values that cannot round-trip, `CacheValueTooLargeError`
   * above `cache.maxValueBytes`, and `InvalidArgumentError` for a bad key or option; `undefined` is refused.
   */
  async set(key: string, value: unknown, options?: EntryOptions): Promise<boolean> {
    const entry = this.entryKey(key);
    if (value === undefined) throw new InvalidArgumentError('value', 'undefined is not cached (use del to remove a key)');
    const policy = buildPolicy(options, this.defaults);
    return this.engine.write(entry, value, policy, { strict: true });
  }

  /** Deletes keys (one DEL per key, so keys in any slot are fine); resolves with how many existed. */
  async del(...keys: string[]): Promise<number> {
    const entries = keys.map((key, i) => this.keys.entry(checkKey(key, `keys[${i}]`)));
    const health = this.engine.health;
    if (entries.length === 0 || !health.available()) return 0;
    try {
      const results = await Promise.all(entries.map((entry) => this.engine.store.del(entry, this.settings.lockTtlMs)));
      health.succeeded();
      return results.filter(Boolean).length;
    } catch (error) {
      health.failed('delete', error);
      return 0;
    }
  }

  /**
   * Cache-aside with stampede control: the cached value, or `loader()`'s result, stored with the options' TTL and
   * tags. Concurrent callers in this process share one loader call; across instances a per-key fill lock lets one
   * load while the others wait (polling with backoff, at most `cache.lockWaitMs`, then they load themselves).
   * With `staleTtl`, a value past its fresh TTL is returned at once while one background refresh runs; with
   * `earlyRefresh`, hot keys are refreshed shortly before they expire (XFetch). Loader errors propagate; `undefined`
   * results are returned but not cached.
   */
  async wrap<T>(key: string, loader: () => Promise<T> | T, options?: WrapOptions): Promise<T> {
    return (await this.wrapWithStatus(key, loader, options)).value;
  }

  /** {@link CacheService.wrap}, also telling whether the value was a HIT, a MISS (loaded) or STALE. */
  wrapWithStatus<T>(key: string, loader: () => Promise<T> | T, options?: WrapOptions): Promise<Fetched<T>> {
    let entry: string;
    let policy: EntryPolicy;
    try {
      entry = this.entryKey(key);
      if (typeof loader !== 'function') throw new InvalidArgumentError('loader', 'expected a function returning the value');
      policy = buildPolicy(options, this.defaults);
    } catch (error) {
      return Promise.reject(error);
    }
    if (policy.near && this.engine.near === undefined) void this.startNear();
    return this.engine.fetch(entry, async () => loader(), policy);
  }

  /**
   * Deletes every entry carrying any of the tags; resolves with the number deleted. After it resolves, no read
   * returns a value written before it began, including values whose write raced it. Cluster-safe: no command
   * touches two slots.
   */
  async invalidateTags(...tags: string[]): Promise<number> {
    const checked = checkTags(tags, 'tags');
    return invalidateTags(this.engine.store, this.engine.health, checked, this.tagEpochTtlMs);
  }

  /** Counters since startup: hits, misses, stale hits, loads, refreshes, Redis errors, bypassed calls, skipped writes. */
  stats(): CacheStats {
    return { ...this.engine.health.stats };
  }

  /** Near-cache (L1) counters and size: hits, misses, evictions, invalidations, clears, entries and bytes held. */
  nearStats(): NearCacheStats {
    return this.near.stats();
  }

  /**
   * A decorator's policy with its `nearCache` choice applied (default `cache.nearCache.enabled`); called at
   * bootstrap, so a bad value fails startup naming the option, and a method that opts in starts the listener.
   */
  nearPolicy(policy: EntryPolicy, choice: unknown, path: string): EntryPolicy {
    if (choice !== undefined && typeof choice !== 'boolean') throw new InvalidOptionsError(path, 'true or false', describeValue(choice));
    const near = choice ?? this.defaults.near;
    if (near) void this.startNear();
    return near === policy.near ? policy : { ...policy, near };
  }

  private startNear(): Promise<void> {
    this.engine.near = this.near;
    this.engine.store.onChange = (entry) => this.near.invalidateLocal(entry);
    return this.near.start(this.connectTimeoutMs);
  }

  /** Lets running loads and background refreshes finish (bounded by `shutdownTimeoutMs`) before connections close. */
  async beforeApplicationShutdown(): Promise<void> {
    this.data.off('ready', this.connectionReady);
    await this.engine.drain(this.shutdownTimeoutMs);
    await this.near.stop();
  }
}
