// `nestjs-redis-patterns/adapters`: the library's stores behind other libraries' interfaces, for applications that
// keep cache-manager or @nestjs/throttler while moving their storage here.
export { RedisPatternsKeyvStore } from '../cache/adapters/keyv-store';
export { RedisPatternsThrottlerStorage } from '../rate-limit/adapters/throttler-storage';
export type { RedisPatternsThrottlerStorageOptions, ThrottlerStorageRecord } from '../rate-limit/adapters/throttler-storage';
// The services the adapters' constructors take, and the types their methods name, as types only: the instances
// come from the application (`app.get(CacheService)`) and every one of these is also a root export.
export type { CacheService } from '../cache/cache.service';
export type { CacheStats } from '../cache/engine/cache-health';
export type { CacheStatus, Fetched } from '../cache/engine/cache-entry';
export type { CacheCodec } from '../cache/serialization/cache-codec';
export type { EntryOptions, WrapOptions } from '../cache/engine/entry-policy';
export type { NearCacheStats } from '../cache/near/l1-store';
export type { RateLimiterService, RateLimitOutageStats } from '../rate-limit/rate-limiter.service';
export type {
  GcraPolicy,
  PolicyBlocking,
  PolicyState,
  RateLimitBalance,
  RateLimitConsumeOptions,
  RateLimitDecision,
  RateLimitPolicy,
  TokenBucketPolicy,
  WindowPolicy,
} from '../rate-limit/rate-limit-policy';
export type { RateLimitKey } from '../rate-limit/rate-limit-key';
