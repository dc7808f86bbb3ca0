import { RedisPatternsError } from '../errors/redis-patterns.error';

/**
 * Thrown when a handler call has no client identity (say a GraphQL context without an HTTP request), or when a `key`
 * function, `rateLimit.getTracker` or `rateLimit.generateKey` returns no identity (`undefined`, `null`, `''`): the
 * call is refused rather than counted in one budget shared by every such caller. Not mapped to an HTTP status: a
 * limiter that cannot tell callers apart is a defect of the application, answered 500 on HTTP.
 */
export class RateLimitIdentityError extends RedisPatternsError {
  /** This error's stable code (docs/errors.md). */
  readonly code = 'RATE_LIMIT_IDENTITY_MISSING';

  constructor(
    readonly limiter: string,
    reason: string,
    advice = 'Give the decorator a `key`, or set rateLimit.getTracker in the module options.',
  ) {
    super(`@RateLimit("${limiter}") cannot identify the caller: ${reason}. ${advice}`);
  }
}
