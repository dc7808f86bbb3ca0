import { Lease } from '../lease/lease';
import { LockLostError } from '../lease/lock-lost.error';

/** The work run under a lock or lease: `signal` aborts (reason: a LockLostError) as soon as it is known lost. */
export type LockedWork<T> = (signal: AbortSignal, lock: Lock) => Promise<T> | T;

/**
 * A held lock. `token` identifies the owner (release and extend compare it in Redis); `fencingToken` increases
 * strictly with every acquisition of the resource, so a store that remembers the highest token it has seen can
 * refuse writes from a holder whose lock expired while it was paused (see the docs).
 *
 * Validity is tracked with a monotonic clock from the start of the successful attempt: `remainingMs` never
 * reports time the lock might already have lost in flight or to clock drift. `release()` gives it back
 * (compare-and-delete); `extend(ttlMs)` prolongs it (compare-and-PEXPIRE), rejecting with a {@link LockLostError}
 * when it is no longer ours.
 */
export class Lock extends Lease<LockLostError> {
  /**
   * The {@link LockLostError} this lock is lost with, `detail` saying how.
   * @internal
   */
  override lostError(detail: string): LockLostError {
    return new LockLostError(this.resource, detail);
  }

  /**
   * How log lines name this lock: `lock "<resource>"`.
   * @internal
   */
  override get label(): string {
    return `lock "${this.resource}"`;
  }
}
