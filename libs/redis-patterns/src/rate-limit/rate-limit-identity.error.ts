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
    /** The limiter's name (`Class.method` unless named). */
    readonly limiter: string,
    /** Why no identity was found (follows "cannot identify the caller:" in the message). */
    reason: string,
    /** What to change, ending the message; by default, to give a `key` or set `rateLimit.getTracker`. */
    advice = 'Give the decorator a `key`, or set rateLimit.getTracker in the module options.',
  ) {
    super(`@RateLimit("${limiter}") cannot identify the caller: ${reason}. ${advice}`);
  }
}
