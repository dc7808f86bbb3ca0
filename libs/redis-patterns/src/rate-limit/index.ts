// Public surface of this pattern: explicit named exports (`export type` for interfaces).
export { RATE_LIMIT_PROVIDERS } from './rate-limit.providers';
export type { RateLimitOptions } from './rate-limit-options';
