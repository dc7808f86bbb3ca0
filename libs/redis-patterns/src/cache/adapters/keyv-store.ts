import { EventEmitter } from 'node:events';
import type { CacheService } from '../cache.service';

/**
 * A Keyv storage adapter (`new Keyv({ store })`) backed by `CacheService`, so `cache-manager` 6+ and
 * `@nestjs/cache-manager`'s `CacheModule` / `CacheInterceptor` use this module's connections: a command timeout and
 * fail-open reads and writes (an outage is a miss, never an error or a hang), cluster-safe keys, pipelined batches,
 * tag-free entries with a TTL always (Keyv's `ttl` in ms; none given: the module's `cache.defaultTtl`, since nothing
 * the library writes lives forever), and the near cache when configured.
 *
 * Values are stored with the cache's codec (Dates, Maps, Sets, BigInts kept): pass `serialize: undefined,
 * deserialize: undefined` to Keyv so it does not JSON-encode them first. `clear()` clears the Keyv namespace
 * (`<namespace>:*`, Keyv's default namespace is `keyv`); without a namespace it rejects rather than clear the
 * whole cache.
 *
 * @example
 * CacheModule.registerAsync({
 *   inject: [CacheService],
 *   useFactory: (cache: CacheService) => ({
 *     stores: [new Keyv({ store: new RedisPatternsKeyvStore(cache), serialize: undefined, deserialize: undefined })],
 *   }),
 * })
 */
export class RedisPatternsKeyvStore extends EventEmitter {
  /** Keyv reads `opts` of its store; nothing here is configurable through it. */
  readonly opts: Record<string, unknown> = { dialect: 'nestjs-redis-patterns' };
  /** Set by Keyv: the namespace its keys start with (`<namespace>:<key>`). */
  namespace?: string;

  constructor(private readonly cache: CacheService) {
    super();
  }

  /** The value, or undefined on a miss (and when Redis cannot answer: the cache fails open). */
  get<Value>(key: string): Promise<Value | undefined> {
    return this.cache.get<Value>(key);
  }

  /** The values of `keys` in order, in one round trip per node. */
  async getMany<Value>(keys: string[]): Promise<Array<Value | undefined>> {
    return this.cache.getMany<Value>(keys);
  }

  /** Whether `key` holds a value. */
  async has(key: string): Promise<boolean> {
    return (await this.cache.get(key)) !== undefined;
  }

  /** Stores `value` for `ttl` ms (default: the module's `cache.defaultTtl`); resolves with whether it was written. */
  set(key: string, value: unknown, ttl?: number): Promise<boolean> {
    return this.cache.set(key, value, ttlOption(ttl));
  }

  /** Stores several values, each with its TTL in ms; their writes share round trips. */
  async setMany(values: Array<{ key: string; value: unknown; ttl?: number }>): Promise<void> {
    await this.cache.setMany(values.map(({ key, value, ttl }) => ({ key, value, options: ttlOption(ttl) })));
  }

  /** Deletes `key`; resolves with whether it existed. */
  async delete(key: string): Promise<boolean> {
    return (await this.cache.del(key)) > 0;
  }

  /** Deletes `keys`; resolves with whether any existed. */
  async deleteMany(keys: string[]): Promise<boolean> {
    return (await this.cache.delMany(keys)) > 0;
  }

  /** Deletes every entry of the Keyv namespace (SCAN + delete, see `CacheService.clear`). */
  async clear(): Promise<void> {
    if (!this.namespace) {
      throw new Error(
        'RedisPatternsKeyvStore.clear(): Keyv has no namespace, and clearing would remove every cache entry; give Keyv a namespace.',
      );
    }
    await this.cache.clear(`${this.namespace}:`);
  }

  /** The connections belong to RedisPatternsModule, which closes them with the application. */
  async disconnect(): Promise<void> {}
}

// Keyv's TTLs are milliseconds; the cache's are seconds (fractions allowed). 0 or none: the module's default.
function ttlOption(ttl: number | undefined): { ttl: number } | undefined {
  return typeof ttl === 'number' && ttl > 0 ? { ttl: ttl / 1000 } : undefined;
}
