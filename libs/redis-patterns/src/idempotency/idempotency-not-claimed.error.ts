import { httpAnswer } from '../errors/http-answer';
import type { HttpResponseSpec } from '../errors/http-mappable';
import { OUTAGE_RETRY_AFTER_MS, outageDetail } from '../errors/redis-unavailable.error';
import { AnsweredRedisPatternsError } from '../errors/redis-patterns.error';

/**
 * Why a call could not claim its idempotency key, so that it did not run:
 * - `in-progress`: a first call with the same key is still running (at once with `onConcurrent: 'reject'`, or once
 *   `waitMs` has passed with `'wait'`);
 * - `unavailable`: Redis did not answer the claim and the call fails closed (`idempotency.failOpen: false`, the
 *   default): running it without knowing whether it already ran could run it twice.
 */
export type IdempotencyClaimFailureReason = 'in-progress' | 'unavailable';

/**
 * Thrown by `@Idempotent` and `IdempotencyService` when the call did not run because its key could not be claimed
 * (see {@link IdempotencyClaimFailureReason}). On HTTP it answers 409 Conflict with `Retry-After` while the first
 * call runs, as the IETF draft asks, and 503 with `Retry-After` when Redis is unreachable; other transports get their
 * form of the same status.
 */
export class IdempotencyNotClaimedError extends AnsweredRedisPatternsError {
  /** This error's stable code (docs/errors.md). */
  readonly code = 'IDEMPOTENCY_NOT_CLAIMED';
  /** When to retry, in ms. */
  override readonly retryAfterMs: number;

  constructor(
    /** The decorated method or the `IdempotencyService` scope. */
    readonly scope: string,
    /** Why the key was not claimed: another call with it is `in-progress`, or Redis was `unavailable`. */
    readonly reason: IdempotencyClaimFailureReason,
    options?: { retryAfterMs?: number; cause?: unknown },
  ) {
    super(
      reason === 'in-progress'
        ? `A call of ${scope} with the same idempotency key is still being processed; retry later.`
        : `Idempotency for ${scope} is unavailable (Redis did not answer); the call was refused, not run.${outageDetail(options?.cause)}`,
      { cause: options?.cause },
    );
    this.retryAfterMs = options?.retryAfterMs ?? OUTAGE_RETRY_AFTER_MS;
  }

  /** 409 Conflict while the first call runs, 503 when Redis is unreachable; both with `Retry-After`. */
  toHttpResponse(): HttpResponseSpec {
    return this.reason === 'in-progress'
      ? httpAnswer(409, 'A request with this idempotency key is still being processed; retry later.', { retryAfterMs: this.retryAfterMs })
      : httpAnswer(503, 'Idempotency is unavailable; retry later.', { retryAfterMs: this.retryAfterMs });
  }
}
