import type { Lease } from '../lease/lease';
import type { LeaderTermEndedError } from './leader-term-ended.error';

/**
 * One term of leadership of a resource by this instance: from winning the lease to losing, resigning or giving it back.
 *
 * `fencingToken` is the lease's fencing token: it is strictly greater than the token of every earlier term of the
 * resource, on any instance, so a store that remembers the highest token it accepted can refuse the writes of a leader
 * whose term ended while it was paused. `signal` aborts (reason: a {@link LeaderTermEndedError}) when the term
 * ends. `isActive` is exact at every read: it compares the lease's validity with a monotonic clock, and a read
 * after the validity ended ends the term on the spot (aborting `signal`) even if the timer that would have done it
 * has not run yet (a process resuming from a pause runs I/O callbacks before timers).
 *
 * @example
 * const term = election.currentTerm('reports');
 * if (term?.isActive) await store.write(row, { fence: term.fencingToken, signal: term.signal });
 */
export class LeaderTerm {
  private readonly controller = new AbortController();

  /** @internal Created by LeaderElection. */
  constructor(
    /** The resource this term leads. */
    readonly resource: string,
    private readonly lease: Lease,
    private readonly lapse: (term: LeaderTerm) => void,
  ) {}

  /** Strictly increasing per resource across every instance's terms; pass it with every write the term makes. */
  get fencingToken(): number {
    return this.lease.fencingToken;
  }

  /** Aborts when the term ends; its reason is a {@link LeaderTermEndedError}. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** True while this instance is still the resource's leader in this term (ends it when the validity just ran out). */
  get isActive(): boolean {
    if (this.controller.signal.aborted) return false;
    if (this.lease.remainingMs > 0) return true;
    this.lapse(this);
    return false;
  }

  /**
   * How long the term is safely ours without another renewal, in ms: the lease minus the time since the renewal
   * request was sent and a drift margin (0 once ended).
   */
  get remainingMs(): number {
    return this.isActive ? this.lease.remainingMs : 0;
  }

  /** @internal Ends the term: aborts its signal. */
  end(reason: LeaderTermEndedError): void {
    this.controller.abort(reason);
  }
}
