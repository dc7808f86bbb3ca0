import { httpAnswer } from '../errors/http-answer';
import type { HttpResponseSpec } from '../errors/http-mappable';
import { outageDetail } from '../errors/redis-unavailable.error';
import { AnsweredRedisPatternsError } from '../errors/redis-patterns.error';

/**
 * Why a lock was not acquired:
 * - `contention`: another holder kept it for the whole wait;
 * - `unavailable`: Redis did not answer in time (locks fail closed: nothing runs unlocked). A refusal of the command
 *   (ACL, key type) is not this error: it is thrown as the `RedisRefusedError` itself;
 * - `replication`: fewer replicas than `lock.waitReplicas` acknowledged the lock, so it was given back;
 * - `expired`: the lock was granted but its validity was used up before the reply arrived;
 * - `shutdown`: the application is closing and hands out no new locks.
 */
export type LockFailureReason = 'contention' | 'unavailable' | 'replication' | 'expired' | 'shutdown';

/**
 * Thrown by `LockService.acquire`, `using` and `@WithLock` when the lock could not be taken. On an HTTP handler it
 * answers 409 Conflict with `Retry-After` on contention, and 503 Service Unavailable when Redis is unreachable.
 */
export class LockNotAcquiredError extends AnsweredRedisPatternsError {
  /** This error's stable code (docs/errors.md). */
  readonly code: 'LOCK_NOT_ACQUIRED' | 'PERMIT_NOT_ACQUIRED' = 'LOCK_NOT_ACQUIRED';

  constructor(
    /** The resource whose lock was not acquired (for a {@link PermitNotAcquiredError}, the semaphore's name). */
    readonly resource: string,
    /** Why it was not acquired; only `contention` answers 409, every other reason 503. */
    readonly reason: LockFailureReason,
    /** A hint of when to retry, in ms (the holder's remaining TTL on contention). */
    override readonly retryAfterMs: number,
    options?: { cause?: unknown },
  ) {
    super(`Lock "${resource}" was not acquired (${reason}).${outageDetail(options?.cause)}`, options);
  }

  /** 409 Conflict on contention, 503 Service Unavailable otherwise; both with `Retry-After` from `retryAfterMs`. */
  toHttpResponse(): HttpResponseSpec {
    return this.reason === 'contention'
      ? httpAnswer(409, 'The resource is locked by another operation; retry later.', { retryAfterMs: this.retryAfterMs })
      : httpAnswer(503, 'The resource lock is unavailable; retry later.', { retryAfterMs: this.retryAfterMs });
  }
}
