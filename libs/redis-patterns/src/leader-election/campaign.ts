import { performance } from 'node:perf_hooks';
import type { LoggerService } from '@nestjs/common';
import type { ThrottledLog } from '../core/logging/throttled-log';
import { type KeepAlive, keepLeaseAlive } from '../lease/keep-alive';
import type { LeaseContext, LostOf } from '../lease/lease';
import type { LeaseKeys } from '../lease/lease-keys';
import type { ExclusiveLeaseStore } from '../lease/lease.store';
import { refusalIn } from '../lease/refusal-in';
import type { TokenSource } from '../lease/token-source';
import type { CampaignSettings } from './campaign.options';
import { LeaderLease } from './leader-lease';
import { LeaderTerm } from './leader-term';
import { LeaderTermEndedError, type TermEndReason } from './leader-term-ended.error';

/** A change of this instance's leadership of a resource: a term gained, or a term ended and why. */
export type LeadershipChange =
  | { readonly type: 'gained'; readonly resource: string; readonly term: LeaderTerm }
  | { readonly type: 'ended'; readonly resource: string; readonly term: LeaderTerm; readonly reason: TermEndReason };

/** What a campaign needs from the service that runs it. */
export interface CampaignContext {
  readonly store: ExclusiveLeaseStore;
  readonly tokens: TokenSource;
  /** The part of a lease not trusted because of clock drift, in ms (the lock's `driftFactor`). */
  driftMs(ttlMs: number): number;
  readonly logger: LoggerService;
  /** Where "Redis could not be reached" goes: once, then at most every 10 s. */
  readonly outage: ThrottledLog;
  /** Where "Redis refused the command" (a configuration error) goes, at error level: once, then at most every 10 s. */
  readonly refusal: ThrottledLog;
  changed(change: LeadershipChange): void;
}

/**
 * The campaign of one resource in this instance. A follower tries to take the lease (the lock's acquire script: SET NX
 * PX with an owner token, and the fencing token, in one round trip) every `renewEveryMs`; the winner renews it
 * every `renewEveryMs` with the lease kernel's keep-alive (compare-and-PEXPIRE). The term ends when a renewal finds the
 * lease gone or someone else's, or — fail closed — when the lease's validity, measured on a monotonic clock from
 * the send time of the last successful renewal minus a drift margin, runs out without another: that is before
 * Redis can expire the key and let a follower in. A crashed or frozen leader's lease expires in Redis at most
 * `ttlMs` after its last renewal, and a follower retries within `renewEveryMs` of that.
 */
export class Campaign {
  private term?: { readonly term: LeaderTerm; readonly lease: LeaderLease; readonly keepAlive: KeepAlive<LostOf<LeaderLease>> };
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private inFlight?: Promise<void>;
  /** Leases a store answer said are no longer ours (release, or a renewal refused): their loss is `lost`. */
  private readonly gone = new WeakSet<LeaderLease>();
  private readonly leaseContext: LeaseContext<LeaderLease>;

  constructor(
    readonly resource: string,
    readonly settings: CampaignSettings,
    private readonly keys: LeaseKeys,
    private readonly context: CampaignContext,
  ) {
    this.leaseContext = {
      store: context.store,
      driftMs: (ttlMs) => context.driftMs(ttlMs),
      forget: (lease) => this.gone.add(lease),
      extended: () => undefined,
    };
  }

  /** Starts campaigning: the first attempt at once; resolves when it is decided (won, lost or failed). */
  start(): Promise<void> {
    return this.attempt();
  }

  /** Resolves when the attempt in flight (if any) is decided. */
  settled(): Promise<void> {
    return this.inFlight ?? Promise.resolve();
  }

  /** The current term, if this instance leads the resource now. */
  get currentTerm(): LeaderTerm | undefined {
    const term = this.term?.term;
    return term?.isActive ? term : undefined;
  }

  get isLeader(): boolean {
    return this.currentTerm !== undefined;
  }

  /** Stops campaigning: no more attempts; a term in progress ends with `reason` and its lease is given back. */
  async stop(reason: 'resigned' | 'shutdown'): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    // An attempt in flight may still win the lease: wait for it, so it is given back below and not left to its TTL.
    await this.inFlight;
    if (this.term) await this.end(this.term.term, reason);
  }

  private attempt(): Promise<void> {
    const attempt = this.takeLease().finally(() => {
      if (this.inFlight === attempt) this.inFlight = undefined;
    });
    this.inFlight = attempt;
    return attempt;
  }

  private async takeLease(): Promise<void> {
    const { ttlMs, renewEveryMs } = this.settings;
    const token = this.context.tokens.take();
    // Validity counts from before the send: the lease can only have started later in Redis, never earlier.
    const startedAt = performance.now();
    let result;
    try {
      result = await this.context.store.attempt(this.keys, token, ttlMs);
    } catch (error) {
      // Fail closed: no answer means follower. The store cleans up a lease the timed-out request may still take.
      const refused = refusalIn(error);
      if (refused) {
        this.context.refusal.warn(
          `Leader election for "${this.resource}": ${refused.message}; this instance stays a follower and retries every ${renewEveryMs} ms.`,
        );
        return this.schedule();
      }
      this.context.outage.warn(
        `Leader election for "${this.resource}": ${(error as Error).message} This instance stays a follower and retries every ${renewEveryMs} ms.`,
      );
      return this.schedule();
    }
    if (!result.acquired) return this.schedule();
    const lease = new LeaderLease(this.resource, token, result.fencingToken, this.keys, ttlMs, startedAt, this.leaseContext);
    if (this.stopped || !lease.isHeld) {
      // Stopped meanwhile, or the reply came after the lease's validity: it may already be someone else's turn.
      await this.giveBack(lease);
      return this.schedule();
    }
    this.begin(lease);
  }

  private begin(lease: LeaderLease): void {
    const term = new LeaderTerm(this.resource, lease, (lapsed) => void this.end(lapsed, 'expired'));
    // Renew at least twice per validity, even when a large lock.driftFactor eats into the lease.
    const intervalMs = Math.min(this.settings.renewEveryMs, Math.max(1, Math.floor(lease.remainingMs / 2)));
    const keepAlive = keepLeaseAlive(
      lease,
      this.settings.ttlMs,
      intervalMs,
      (error) => void this.end(term, this.gone.has(lease) ? 'lost' : 'expired', error),
      this.context.logger,
    );
    this.term = { term, lease, keepAlive };
    keepAlive.start();
    this.context.changed({ type: 'gained', resource: this.resource, term });
  }

  /** Ends `term` (once): aborts its signal, tells the service, gives the lease back, and goes on campaigning. */
  private async end(term: LeaderTerm, reason: TermEndReason, cause?: unknown): Promise<void> {
    const current = this.term;
    if (current?.term !== term) return;
    this.term = undefined;
    current.keepAlive.stop();
    term.end(new LeaderTermEndedError(this.resource, reason, { cause }));
    this.context.changed({ type: 'ended', resource: this.resource, term, reason });
    // Compare-and-delete: it removes the lease only if it is still ours (a step-down on a slow renewal, a shutdown),
    // so followers take over at their next attempt instead of waiting out the lease.
    await this.giveBack(current.lease);
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.attempt(), this.settings.renewEveryMs);
  }

  private async giveBack(lease: LeaderLease): Promise<void> {
    try {
      await lease.release();
    } catch (error) {
      this.context.logger.debug?.(
        `Could not give back the lease of "${this.resource}" (it expires with its TTL): ${(error as Error).message}`,
      );
    }
  }
}
