import type { HttpMappableError, HttpResponseSpec } from './http-mappable';

/**
 * The stable code of every error the library throws, one per error class: what an application switches on, logs and
 * alerts on (messages may be reworded; codes change only in a major version).
 */
export type RedisPatternsErrorCode =
  // Configuration and startup
  | 'INVALID_OPTIONS'
  | 'INVALID_ARGUMENT'
  | 'CONNECTION_NOT_FOUND'
  | 'CONNECTION_STARTUP_FAILED'
  | 'NOT_BOUND'
  | 'UNSUPPORTED_HANDLER'
  | 'NO_REDIS_IN_MEMORY_MODE'
  // Redis
  | 'REDIS_UNAVAILABLE'
  | 'REDIS_REFUSED'
  | 'HEALTH_CHECK_FAILED'
  // Cache
  | 'CACHE_VALUE_TOO_LARGE'
  | 'CACHE_SERIALIZATION_FAILED'
  | 'UNCACHEABLE_ARGUMENT'
  | 'CACHE_LOAD_TIMEOUT'
  // Rate limits
  | 'RATE_LIMIT_DENIED'
  | 'RATE_LIMIT_IDENTITY_MISSING'
  // Coordination
  | 'LOCK_NOT_ACQUIRED'
  | 'LOCK_LOST'
  | 'QUORUM_UNREACHABLE'
  | 'PERMIT_NOT_ACQUIRED'
  | 'PERMIT_LOST'
  | 'LEADER_TERM_ENDED'
  // Idempotency
  | 'IDEMPOTENCY_NOT_CLAIMED'
  | 'IDEMPOTENCY_KEY_REUSED'
  | 'IDEMPOTENCY_KEY_INVALID'
  | 'IDEMPOTENCY_IDENTITY_MISSING';

/**
 * The base of every error the library throws: `instanceof RedisPatternsError` tells the library's errors from
 * others, and `code` which one it is. `name` is the class name; `cause` carries the underlying error (an ioredis
 * error, a refusal) where there is one. Errors that tell the caller when to try again carry `retryAfterMs`.
 *
 * @example
 * catch (error) {
 *   if (error instanceof RedisPatternsError && error.code === 'LOCK_NOT_ACQUIRED') return retryLater(error.retryAfterMs);
 *   throw error;
 * }
 */
export abstract class RedisPatternsError extends Error {
  /** Which error this is; stable across minor versions. */
  abstract readonly code: RedisPatternsErrorCode;
  /** When the caller may retry, in ms, on the errors where it applies (rate limits, contention, outages). */
  declare readonly retryAfterMs?: number;

  /** The class name, as `error.name` (so subclasses need not set it). */
  override get name(): string {
    return this.constructor.name;
  }
}

/**
 * A library error that knows its answer to a caller (`RateLimitDeniedError`, `LockNotAcquiredError`,
 * `RedisUnavailableError` …) (an HTTP status with headers and body; other transports carry
 * its status, message and `retryAfterMs` in their own form, see core/advice/context-errors.ts). The module's global
 * filter catches this class.
 */
export abstract class AnsweredRedisPatternsError extends RedisPatternsError implements HttpMappableError {
  /** The answer this error maps to: status, headers (`Retry-After` when retrying helps) and body. */
  abstract toHttpResponse(): HttpResponseSpec;
}
