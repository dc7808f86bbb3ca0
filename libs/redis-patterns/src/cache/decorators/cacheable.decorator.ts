import { createAdvisedDecorator } from '../../core/advice/create-advised-decorator';
import type { CacheCodec } from '../serialization/cache-codec';
import { CacheableAdvisor } from '../advisors/cacheable.advisor';
import type { KeySource, TagsSource } from '../advisors/compile-sources';

/** Options of {@link Cacheable}. `A` is the decorated method's argument list, `R` its (awaited) result. */
export interface CacheableOptions<A extends unknown[] = any[], R = any> {
  /**
   * The cache key: a string, or a function of the method's arguments. Default: `<Class>.<method>` plus a stable
   * encoding of the arguments: primitives, plain objects, arrays, Dates, Buffers, typed arrays, Maps, Sets, and
   * objects with `toJSON()` (such as URL). A call with any other argument (a class instance without `toJSON`, a
   * RegExp, an Error, a request object…) runs without the cache, with a one-time warning: give an explicit key then,
   * and include the user or tenant on per-user routes.
   */
  key?: KeySource<A>;
  /**
   * Fresh TTL in **seconds** (default `cache.defaultTtl`), or a function of the result and the arguments returning it
   * (e.g. `(user) => (user.active ? 3600 : 60)`); jitter may shorten it. A function answering anything but a number of
   * seconds > 0 leaves that result unstored, with a warning. A number that is a round thousand (`60000`) reads like
   * ms and is logged at startup: prefer `ttlMs`.
   */
  ttl?: number | ((result: R, ...args: A) => number);
  /** Fresh TTL in ms (a whole number): the unambiguous spelling of a constant `ttl` (give one or the other). */
  ttlMs?: number;
  /** Tags for `invalidateTags` / `@CacheEvict({ tags })`: a list, or a function of the arguments. */
  tags?: TagsSource<A>;
  /** Evaluated before the call: when false the method runs without the cache. */
  condition?: (...args: A) => boolean;
  /** Evaluated after a load, with the result: when true the result is returned but not stored. */
  unless?: (result: R, ...args: A) => boolean;
  /** How the result is encoded (default: the module's `cache.codec`); see `CacheCodec`. */
  codec?: CacheCodec;
  /** Stale-while-revalidate window in **seconds** (see `WrapOptions.staleTtl`); checked like `ttl`. */
  staleTtl?: number;
  /** Stale-while-revalidate window in ms: the unambiguous spelling of `staleTtl` (give one or the other). */
  staleTtlMs?: number;
  /** Probabilistic early refresh (XFetch): `true` or a β. */
  earlyRefresh?: boolean | number;
  /** Serve hits from the in-process near cache (L1): default `cache.nearCache.enabled`. */
  nearCache?: boolean;
  /**
   * Grace window in ms (default `cache.graceMs`): the result is kept this long past its TTL, and when the method
   * throws, that value answers instead (`X-Cache: STALE` over HTTP); see `WrapOptions.graceMs`.
   */
  graceMs?: number;
  /** With a stale or grace value at hand, answer with it once the method has run this long, in ms (see `WrapOptions`). */
  softTimeoutMs?: number;
  /** Stop waiting for the method after this long, in ms: the grace value, or `CacheLoadTimeoutError` (504). */
  hardTimeoutMs?: number;
  /**
   * Skip the read and run the method, replacing the entry (a refresh): `true`, or a function of the call (on a
   * handler `(request, context)`, else the method's arguments). Calls that force a refresh of one key still share
   * one run across instances; on HTTP, a function reading a client's header lets that client make the data source
   * work, so gate it (an admin role, a signed request).
   */
  forceFresh?: boolean | ((...args: A) => boolean);
}

/**
 * A method decorator checked against the decorated method's result: `unless` and a `ttl` function see its type. The
 * key functions' parameters are not tied to the method's: on a handler Nest calls they get `(request, context)`, on
 * any other call the method's arguments.
 */
export type TypedMethodDecorator<R> = <M extends (...args: any[]) => R | Promise<R>>(
  target: object,
  propertyKey: string | symbol,
  descriptor: TypedPropertyDescriptor<M>,
) => void;

/**
 * Caches the method's result (cache-aside). On a hit the method does not run; on a miss it runs once per key
 * across concurrent callers and app instances (stampede control), and the result is stored unless it is
 * `undefined` or `unless` says so (`0`, `''`, `false` and `null` are cached). Works on provider methods and
 * controller handlers; on HTTP it applies to GET (see `cache.httpMethods`), sets `X-Cache: HIT|MISS|STALE` (unless
 * `cache.statusHeader` is false), and never stores a response that sets a cookie. The decorated method becomes async.
 * Fails open when Redis is unavailable.
 *
 * @example
 * \@Cacheable({ key: (id: string) => `user:${id}`, ttlMs: 300_000, tags: (id: string) => [`user:${id}`] })
 * findUser(id: string): Promise<User> { … }
 */
export function Cacheable<A extends unknown[] = any[], R = any>(options: CacheableOptions<A, R> = {}): TypedMethodDecorator<R> {
  const decorate = createAdvisedDecorator(CacheableAdvisor, options as CacheableOptions);
  return (target, propertyKey, descriptor) => {
    decorate(target, propertyKey, descriptor as TypedPropertyDescriptor<unknown>);
  };
}
