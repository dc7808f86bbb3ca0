import { createAdvisedDecorator } from '../../core/advice/create-advised-decorator';
import type { CacheCodec } from '../serialization/cache-codec';
import { CachePutAdvisor } from '../advisors/cache-put.advisor';
import type { KeySource, TagsSource } from '../advisors/compile-sources';
import type { TypedMethodDecorator } from './cacheable.decorator';

/** Options of {@link CachePut}. */
export interface CachePutOptions<A extends unknown[] = any[], R = any> {
  /** The key to write: a string or a function of the method's arguments (default: as `@Cacheable`). */
  key?: KeySource<A>;
  /** TTL in **seconds** (default `cache.defaultTtl`), or a function of the result and the arguments (as `@Cacheable`). */
  ttl?: number | ((result: R, ...args: A) => number);
  /** TTL in ms (a whole number): the unambiguous spelling of a constant `ttl` (give one or the other). */
  ttlMs?: number;
  /** Tags of the written entry, for `invalidateTags` / `@CacheEvict({ tags })`: a list, or a function of the arguments. */
  tags?: TagsSource<A>;
  /** How the result is encoded (default: the module's `cache.codec`); see `CacheCodec`. */
  codec?: CacheCodec;
  /** Stale window in **seconds**, as for `@Cacheable` readers of the same key. */
  staleTtl?: number;
  /** Stale window in ms: the unambiguous spelling of `staleTtl` (give one or the other). */
  staleTtlMs?: number;
  /** Grace window in ms (default `cache.graceMs`), as for `@Cacheable` readers of the same key. */
  graceMs?: number;
  /**
   * Write behind instead of through: the result goes to the cache and to this queue's writer (`@WriteBehindWriter`),
   * which saves it later in batches; the method itself then does not save it. Needs a `key` (the writer receives it);
   * a write that fails rejects the call.
   */
  writeBehind?: string;
}

/**
 * Write-through: the method always runs and its result is stored under the key (so readers using `@Cacheable` or
 * `CacheService.get` on that key see it). `undefined` results are not stored; failures to store are logged.
 *
 * @example
 * \@CachePut({ key: (user: User) => `user:${user.id}`, ttlMs: 300_000 })
 * save(user: User): Promise<User> { … }
 */
export function CachePut<A extends unknown[] = any[], R = any>(options: CachePutOptions<A, R> = {}): TypedMethodDecorator<R> {
  const decorate = createAdvisedDecorator(CachePutAdvisor, options as CachePutOptions);
  return (target, propertyKey, descriptor) => {
    decorate(target, propertyKey, descriptor as TypedPropertyDescriptor<unknown>);
  };
}
