import { Lease, type LeaseContext } from '../lease/lease';
import type { LeaseKeys } from '../lease/lease-keys';
import type { LockLostError } from '../lease/lock-lost.error';
import { PermitLostError } from './permit-lost.error';

/**
 * A held permit of a semaphore: a lease like a {@link Lock} — `token` identifies the holder, `fencingToken` increases
 * strictly with every permit of the semaphore (one counter per semaphore), `remainingMs` is the validity left on a
 * monotonic clock, `release()` gives it back and `extend(ttlMs)` prolongs it (rejecting with a PermitLostError when it
 * is no longer held). `resource` names the semaphore.
 */
export class Permit extends Lease<LockLostError> {
  /** @internal Created by SemaphoreService. */
  constructor(
    resource: string,
    /** The number of permits the semaphore had for this acquisition. */
    readonly permits: number,
    token: string,
    fencingToken: number,
    keys: LeaseKeys,
    ttlMs: number,
    startedAt: number,
    context: LeaseContext,
  ) {
    super(resource, token, fencingToken, keys, ttlMs, startedAt, context);
  }

  /**
   * The {@link PermitLostError} this permit is lost with, `detail` saying how.
   * @internal
   */
  override lostError(detail: string): LockLostError {
    return new PermitLostError(this.resource, detail);
  }

  /**
   * How log lines name this permit: `a permit of semaphore "<resource>"`.
   * @internal
   */
  override get label(): string {
    return `a permit of semaphore "${this.resource}"`;
  }
}
