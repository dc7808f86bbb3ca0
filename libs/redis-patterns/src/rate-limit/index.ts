// Public surface of this pattern: explicit named exports (`export type` for interfaces).
export { RATE_LIMIT_PROVIDERS } from './rate-limit.providers';
export type { RateLimitOptions } from './rate-limit-options';
export { RateLimiterService } from './rate-limiter.service';
export type { RateLimitOutageStats } from './rate-limiter.service';
export { RateLimit, SkipRateLimit } from './rate-limit.decorator';
export { RateLimitGuard } from './rate-limit.guard';
export { RateLimitAdvisor } from './rate-limit.advisor';
export { RATE_LIMIT_METADATA, SKIP_RATE_LIMIT_METADATA } from './rate-limit.constants';
export { RATE_LIMIT_ALGORITHMS } from './rate-limit-policy';
export type {
  RateLimitConsumeOptions,
  GcraPolicy,
  PolicyState,
  RateLimitAlgorithm,
  RateLimitDecision,
  RateLimitOutageOptions,
  RateLimitPolicy,
  TokenBucketPolicy,
  WindowPolicy,
} from './rate-limit-policy';
export type { RateLimitDecoratorOptions } from './resolve-limiter';
export { clientAddress, normalizeAddress } from './client-address';
export { rateLimitHeaders } from './rate-limit-headers';
export { RateLimitExceededError } from '../errors/rate-limit-exceeded.error';
export { RateLimitUnavailableError } from '../errors/rate-limit-unavailable.error';
export { RateLimitIdentityError } from '../errors/rate-limit-identity.error';
