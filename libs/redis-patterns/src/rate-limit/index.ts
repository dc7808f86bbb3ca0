// Public surface of this pattern: explicit named exports (`export type` for interfaces).
export type { RateLimitOptions } from './rate-limit.options';
export { RateLimiterService } from './rate-limiter.service';
export type { RateLimitOutageStats } from './rate-limiter.service';
export { RateLimit, SkipRateLimit } from './rate-limit.decorator';
export type {
  RateLimitConsumeOptions,
  GcraPolicy,
  PolicyBlocking,
  PolicyState,
  RateLimitAlgorithm,
  RateLimitBalance,
  RateLimitDecision,
  RateLimitPolicy,
  TokenBucketPolicy,
  WindowPolicy,
} from './rate-limit-policy';
export type { RateLimitDecoratorOptions, RateLimitPolicyResolver } from './resolve-limiter';
export { clientAddress } from './client-address';
export type { ClientAddressRequest } from './client-address';
export { RateLimitDeniedError } from './rate-limit-denied.error';
export type { RateLimitDenialReason } from './rate-limit-denied.error';
export { RateLimitIdentityError } from './rate-limit-identity.error';
export type { RateLimitKey } from './rate-limit-key';
