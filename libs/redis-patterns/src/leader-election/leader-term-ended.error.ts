import { RedisPatternsError } from '../errors/redis-patterns.error';

/**
 * Why a leader term ended:
 * - `lost`: a renewal found the lease gone or held by another instance (this one was paused or cut off past it);
 * - `expired`: no renewal succeeded within the lease's validity (Redis unreachable, frozen or slow, or this process
 *   stalled): the instance stepped down before Redis could hand the lease to anyone else (fail closed);
 * - `resigned`: `resign(resource)` was called;
 * - `shutdown`: the application is closing and gave the lease back.
 */
export type TermEndReason = 'lost' | 'expired' | 'resigned' | 'shutdown';

const WHY: Record<TermEndReason, string> = {
  lost: 'a renewal found the lease gone or held by another instance',
  expired: 'no renewal succeeded within the lease, so this instance stepped down',
  resigned: 'this instance resigned',
  shutdown: 'the application is shutting down',
};

/** The reason of a term's AbortSignal when the term ends. The resource is a configured name, never data. */
export class LeaderTermEndedError extends RedisPatternsError {
  /** This error's stable code (docs/errors.md). */
  readonly code = 'LEADER_TERM_ENDED';

  constructor(
    /** The resource whose leader term ended. */
    readonly resource: string,
    /** Why the term ended. */
    readonly reason: TermEndReason,
    options?: { cause?: unknown },
  ) {
    super(`The leader term of "${resource}" ended: ${WHY[reason]}.`, options);
  }
}
