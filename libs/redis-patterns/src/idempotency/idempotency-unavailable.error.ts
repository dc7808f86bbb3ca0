import { httpAnswer } from '../errors/http-answer';
import type { HttpResponseSpec } from '../errors/http-mappable';
import { OUTAGE_RETRY_AFTER_MS, outageDetail } from '../errors/redis-unavailable.error';
import { AnsweredRedisPatternsError } from '../errors/redis-patterns.error';

/**
 * Thrown by `@Idempotent` and `IdempotencyService` when Redis cannot answer (down, or frozen past the command
 * timeout) and the call fails closed (`idempotency.failOpen: false`, the default): running it without knowing whether
 * it already ran could run it twice. On HTTP it answers 503 with `Retry-After`. Nothing ran.
 */
export class IdempotencyUnavailableError extends AnsweredRedisPatternsError {
  /** This error's stable code (docs/errors.md). */
  readonly code = 'IDEMPOTENCY_UNAVAILABLE';
  /** A hint of when to retry, in ms. */
  override readonly retryAfterMs = OUTAGE_RETRY_AFTER_MS;

  constructor(
    readonly scope: string,
    options?: { cause?: unknown },
  ) {
    super(
      `Idempotency for ${scope} is unavailable (Redis did not answer); the call was refused, not run.${outageDetail(options?.cause)}`,
      options,
    );
  }

  toHttpResponse(): HttpResponseSpec {
    return httpAnswer(503, 'Idempotency is unavailable; retry later.', { retryAfterMs: this.retryAfterMs });
  }
}
