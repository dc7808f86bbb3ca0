import { httpAnswer } from '../errors/http-answer';
import type { HttpResponseSpec } from '../errors/http-mappable';
import { OUTAGE_RETRY_AFTER_MS, outageDetail } from '../errors/redis-unavailable.error';
import { AnsweredRedisPatternsError } from '../errors/redis-patterns.error';

/**
 * Thrown by a fail-closed limiter (`failOpen: false`, no in-memory fallback) when Redis cannot decide (down,
 * frozen past the command timeout): the call is refused rather than let through unlimited. HTTP: 503.
 */
export class RateLimitUnavailableError extends AnsweredRedisPatternsError {
  /** This error's stable code (docs/errors.md). */
  readonly code = 'RATE_LIMIT_UNAVAILABLE';
  /** A hint of when to retry, in ms. */
  override readonly retryAfterMs = OUTAGE_RETRY_AFTER_MS;

  constructor(
    readonly limiter: string,
    options?: { cause?: unknown },
  ) {
    super(`Rate limiter "${limiter}" is unavailable (Redis did not answer) and fails closed.${outageDetail(options?.cause)}`, options);
  }

  toHttpResponse(): HttpResponseSpec {
    return httpAnswer(503, 'Rate limiter unavailable', { retryAfterMs: this.retryAfterMs });
  }
}
