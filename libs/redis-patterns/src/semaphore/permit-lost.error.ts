import { LockLostError } from '../lease/lock-lost.error';

/**
 * A held permit is no longer ours: it expired, was removed, or could not be extended before its validity ran out.
 * `SemaphoreService.using()` aborts its signal with this error as the reason; `Permit.extend` rejects with it. It is
 * a {@link LockLostError}, so code that handles lost locks handles lost permits too; `resource` names the semaphore.
 */
export class PermitLostError extends LockLostError {
  /** This error's stable code (docs/errors.md). */
  override readonly code = 'PERMIT_LOST';

  constructor(resource: string, detail: string, options?: { cause?: unknown }) {
    super(resource, detail, options);
    this.message = `A permit of semaphore "${resource}" was lost: ${detail}.`;
  }
}
