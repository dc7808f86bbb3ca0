import { Lease } from '../lease/lease';
import { LockLostError } from '../lease/lock-lost.error';

/**
 * The lease a leader holds for its resource. Its loss is a {@link LockLostError}, as when leader
 * leases were locks: it becomes the `cause` of the term's LeaderTermEndedError, and log lines name it as a lock.
 */
export class LeaderLease extends Lease<LockLostError> {
  /** @internal */
  override lostError(detail: string): LockLostError {
    return new LockLostError(this.resource, detail);
  }

  /** @internal */
  override get label(): string {
    return `lock "${this.resource}"`;
  }
}
