import { RedisPatternsError } from '../errors/redis-patterns.error';

/**
 * A held lock is no longer ours: it expired, was taken by another holder, was deleted, or could not be extended
 * before its validity ran out. `using()` aborts its signal with this error as the reason; `Lock.extend` rejects
 * with it.
 */
export class LockLostError extends RedisPatternsError {
  /** This error's stable code (docs/errors.md). */
  readonly code: 'LOCK_LOST' | 'PERMIT_LOST' = 'LOCK_LOST';

  constructor(
    /** The resource of the lost lease (for a {@link PermitLostError}, the semaphore's name). */
    readonly resource: string,
    /** How it was found lost, e.g. `it expired or another holder took it before the extension` (ends the message). */
    readonly detail: string,
    options?: { cause?: unknown },
  ) {
    super(`Lock "${resource}" was lost: ${detail}.`, options);
  }
}
