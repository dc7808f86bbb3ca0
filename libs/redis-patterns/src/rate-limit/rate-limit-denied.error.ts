import type { RateLimitDecision } from './rate-limit-policy';
import { httpAnswer } from '../errors/http-answer';
import type { HttpResponseSpec } from '../errors/http-mappable';
import { OUTAGE_RETRY_AFTER_MS, outageDetail } from '../errors/redis-unavailable.error';
import { AnsweredRedisPatternsError } from '../errors/redis-patterns.error';

/**
 * Why a rate limit denied a call:
 * - `exceeded`: a policy's budget is spent (`decision` says which and until when);
 * - `unavailable`: Redis could not decide (down, or frozen past the command timeout) and the limiter fails closed
 *   (`failOpen: false`, no in-memory fallback): the call is refused rather than let through unlimited.
 */
export type RateLimitDenialReason = 'exceeded' | 'unavailable';

/**
 * Thrown when `@RateLimit` or `RateLimiterService` denies a call (see {@link RateLimitDenialReason}). On HTTP it
 * answers 429 with `Retry-After` and the `RateLimit` headers when exceeded, 503 with `Retry-After` when unavailable;
 * other transports get their form of the same status.
 *
 * @example
 * try { await mailer.send(to) } catch (e) { if (e instanceof RateLimitDeniedError) retryIn(e.retryAfterMs) }
 */
export class RateLimitDeniedError extends AnsweredRedisPatternsError {
  /** This error's stable code (docs/errors.md). */
  readonly code = 'RATE_LIMIT_DENIED';
  /** When the call could be allowed, in ms (the decision's `retryAfterMs` when exceeded). */
  override readonly retryAfterMs: number;
  /** The decision that denied the call (reason `exceeded`). */
  readonly decision?: RateLimitDecision;
  /** Extra response headers (`RateLimit`, `RateLimit-Policy`) when known. */
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    /** The limiter's name (`Class.method` unless named). */
    readonly limiter: string,
    /** Why the call was denied: a budget `exceeded`, or Redis `unavailable` with the limiter failing closed. */
    readonly reason: RateLimitDenialReason,
    options: { decision?: RateLimitDecision; headers?: Readonly<Record<string, string>>; cause?: unknown } = {},
  ) {
    super(
      reason === 'exceeded'
        ? `Rate limit of "${limiter}" exceeded: retry in ${options.decision?.retryAfterMs ?? 0} ms.`
        : `Rate limiter "${limiter}" is unavailable (Redis did not answer) and fails closed.${outageDetail(options.cause)}`,
      { cause: options.cause },
    );
    this.decision = options.decision;
    this.headers = options.headers ?? {};
    this.retryAfterMs = options.decision?.retryAfterMs ?? OUTAGE_RETRY_AFTER_MS;
  }

  /**
   * 429 Too Many Requests with `Retry-After` and the `RateLimit` headers when exceeded; 503 Service Unavailable with
   * `Retry-After` when unavailable.
   */
  toHttpResponse(): HttpResponseSpec {
    return this.reason === 'exceeded'
      ? httpAnswer(429, 'Rate limit exceeded', { retryAfterMs: this.retryAfterMs, headers: this.headers })
      : httpAnswer(503, 'Rate limiter unavailable', { retryAfterMs: this.retryAfterMs });
  }
}
