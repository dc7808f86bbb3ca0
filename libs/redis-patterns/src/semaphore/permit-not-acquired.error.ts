import type { HttpResponseSpec } from '../errors/http-mappable';
import { LockNotAcquiredError } from '../lease/lock-not-acquired.error';
import { outageDetail } from '../errors/redis-unavailable.error';

/**
 * Why no permit was acquired: `contention` (every permit stayed in use for the whole wait), `unavailable` (Redis did
 * not answer in time: semaphores fail closed), `expired` (granted, but its validity was used up before the reply
 * arrived) or `shutdown` (the application is closing).
 */
export type PermitFailureReason = 'contention' | 'unavailable' | 'expired' | 'shutdown';

/**
 * Thrown by `SemaphoreService.acquire`, `using` and `@WithPermit` when no permit could be taken. On an HTTP handler it
 * answers 409 Conflict with `Retry-After` on contention (when the first permit in use expires at the latest), and
 * 503 when Redis is unreachable — as {@link LockNotAcquiredError}, which it extends. `resource` names the semaphore.
 */
export class PermitNotAcquiredError extends LockNotAcquiredError {
  /** This error's stable code (docs/errors.md). */
  override readonly code = 'PERMIT_NOT_ACQUIRED';

  constructor(
    resource: string,
    /** The number of permits the caller asked the semaphore to have. */
    readonly permits: number,
    /** Why no permit was acquired. */
    override readonly reason: PermitFailureReason,
    retryAfterMs: number,
    options?: { cause?: unknown },
  ) {
    super(resource, reason, retryAfterMs, options);
    this.message = `No permit of semaphore "${resource}" (${permits} permits) was acquired (${reason}).${outageDetail(options?.cause)}`;
  }

  /** As a {@link LockNotAcquiredError} (409 on contention, 503 otherwise, with `Retry-After`), with a message about permits. */
  override toHttpResponse(): HttpResponseSpec {
    const spec = super.toHttpResponse();
    const message =
      this.reason === 'contention'
        ? 'Every permit of the resource is in use; retry later.'
        : 'The resource semaphore is unavailable; retry later.';
    return { ...spec, body: { ...spec.body, message } };
  }
}
