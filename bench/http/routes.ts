/**
 * The routes of the benchmark app (every library's routes are served by one app, see app.module.ts), shared by the
 * app's modules and the suite that loads them.
 */
export const HTTP_ROUTES = {
  bare: '/bare',
  /** The bare route behind a Nest interceptor that only passes the call on: what any interceptor costs. */
  bareIntercepted: '/bare-intercepted',
  /** `@Cacheable`, a hit read from Redis. */
  cacheable: '/cacheable',
  /** @nestjs/cache-manager's CacheInterceptor on a Keyv + @keyv/redis store, a hit. */
  cacheInterceptor: '/cache-interceptor',
  /** `@RateLimit` with one policy. */
  rateLimit: '/rate-limit',
  /** `@RateLimit` with three policies. */
  rateLimit3: '/rate-limit-3',
  /** ThrottlerGuard applying one named throttler. */
  throttler: '/throttler',
  /** ThrottlerGuard applying three named throttlers. */
  throttler3: '/throttler-3',
  /** `@WithLock` on a resource named by the `id` query parameter. */
  locked: '/locked',
} as const;

/** A route path as Nest's `@Get()` takes it. */
export function routeOf(path: string): string {
  return path.slice(1);
}
