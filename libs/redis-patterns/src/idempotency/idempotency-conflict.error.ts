import { httpAnswer } from '../errors/http-answer';
import type { HttpResponseSpec } from '../errors/http-mappable';
import { AnsweredRedisPatternsError } from '../errors/redis-patterns.error';

/**
 * Thrown by `@Idempotent` and `IdempotencyService` when a call with the same idempotency key is still being
 * processed: at once with `onConcurrent: 'reject'`, or once `waitMs` has passed with `'wait'`. On HTTP it answers
 * 409 Conflict with `Retry-After`, as the IETF draft asks; other transports get their form of a 409. Nothing ran.
 */
export class IdempotencyConflictError extends AnsweredRedisPatternsError {
  /** This error's stable code (docs/errors.md). */
  readonly code = 'IDEMPOTENCY_CONFLICT';

  constructor(
    /** The decorated method or the `IdempotencyService` scope. */
    readonly scope: string,
    /** A hint of when to retry, in ms. */
    override readonly retryAfterMs: number,
  ) {
    super(`A call of ${scope} with the same idempotency key is still being processed; retry later.`);
  }

  toHttpResponse(): HttpResponseSpec {
    return httpAnswer(409, 'A request with this idempotency key is still being processed; retry later.', {
      retryAfterMs: this.retryAfterMs,
    });
  }
}
