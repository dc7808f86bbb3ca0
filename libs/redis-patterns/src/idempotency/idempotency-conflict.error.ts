import { httpAnswer } from '../errors/http-answer';
import { HttpMappableDomainError, type HttpResponseSpec } from '../errors/http-mappable';

/**
 * Thrown by `@Idempotent` and `IdempotencyService` when a call with the same idempotency key is still being
 * processed: at once with `onConcurrent: 'reject'`, or once `waitMs` has passed with `'wait'`. On HTTP it answers
 * 409 Conflict with `Retry-After`, as the IETF draft asks; other transports get their form of a 409. Nothing ran.
 */
export class IdempotencyConflictError extends HttpMappableDomainError {
  constructor(
    /** The decorated method or the `IdempotencyService` scope. */
    readonly scope: string,
    /** A hint of when to retry, in ms. */
    readonly retryAfterMs: number,
  ) {
    super(`A call of ${scope} with the same idempotency key is still being processed; retry later.`);
  }

  override get name(): string {
    return this.constructor.name;
  }

  toHttpResponse(): HttpResponseSpec {
    return httpAnswer(409, 'A request with this idempotency key is still being processed; retry later.', {
      retryAfterMs: this.retryAfterMs,
    });
  }
}
