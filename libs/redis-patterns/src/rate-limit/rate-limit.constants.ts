/** Metadata key of `@RateLimit` on a handler, method or class (a {@link RateLimitMetadata}). */
export const RATE_LIMIT_METADATA = 'redis-patterns:rate-limit';
/** Metadata key of `@SkipRateLimit`. */
export const SKIP_RATE_LIMIT_METADATA = 'redis-patterns:skip-rate-limit';
