import { performance } from 'node:perf_hooks';
import { type BeforeApplicationShutdown, Logger } from '@nestjs/common';
import type { ResolvedCoreOptions } from '../core/options/resolve-options';
import { RedisRefusedError } from '../errors/redis-refused.error';
import type { AttemptResult } from './attempt-result';
import { attemptUntil, type Refusal } from './backoff';
import { HeldLeases, type HeldLeasesOptions } from './held-leases';
import { Lease, type LeaseContext } from './lease';
import type { LeaseMetrics } from './lease.metrics';
import type { LeaseSettings } from './lease.options';
import type { LeaseStore } from './lease.store';
import { LocalWaiters } from './local-waiters';
import { type LockFailureReason, LockNotAcquiredError } from './lock-not-acquired.error';
import { refusalIn } from './refusal-in';
import { TokenSource } from './token-source';

/** How a lease runtime names itself and its leases (logs, metrics) and runs their work (tracing, async context). */
export interface LeaseRuntimeSpec<L extends Lease> extends Pick<HeldLeasesOptions<L>, 'logContext' | 'tracing' | 'enter'> {
  /** The logger context when the module has no logger of its own (`RedisPatterns:Lock`). */
  readonly loggerContext: string;
  readonly metrics: LeaseMetrics;
}

/** Owner tokens of every lease the process acquires (one pool of crypto-random bytes, refilled in the background). */
export const leaseTokens = new TokenSource();

/** Why an attempt that reached Redis did not get its lease. */
export type AttemptRefusal = Refusal<'contention' | 'replication' | 'expired'>;

const EXPIRED: AttemptRefusal = { reason: 'expired', retryAfterMs: 0 };

/** One acquisition, as the service that hands the lease out describes it (a lock, a read or write lease, a permit). */
export interface LeaseRequest<L extends Lease> {
  /** Sends one attempt for the owner `token`. */
  send(token: string): Promise<AttemptResult>;
  /** The lease a granted attempt made; its validity counts from `startedAt`, when the attempt was sent. */
  grant(token: string, fencingToken: number, startedAt: number): L;
  /** The error an acquisition that ends without its lease rejects with. */
  notAcquired(reason: LockFailureReason, retryAfterMs: number, options?: { cause?: unknown }): LockNotAcquiredError;
  /** Where a waiting acquisition sleeps between attempts: a release by this instance wakes it there. */
  readonly waitKey: string;
}

/**
 * The state a service that hands out leases (locks, permits) shares with its decorator's advisor: the leases this
 * instance holds and the work running under them, the local waiters a release wakes, and the metrics. Both acquire
 * through the service's public methods and run held work here, so there is one registry to drain at shutdown,
 * whoever took the lease.
 */
export abstract class LeaseRuntime<L extends Lease> implements BeforeApplicationShutdown {
  readonly leases: HeldLeases<L>;
  readonly waiters = new LocalWaiters();
  readonly metrics: LeaseMetrics;
  private closed = false;
  private readonly driftFactor: number;
  private readonly shutdownTimeoutMs: number;
  private readonly delays: Pick<LeaseSettings, 'retryDelayMs' | 'maxRetryDelayMs'>;

  protected constructor(options: ResolvedCoreOptions, settings: LeaseSettings, spec: LeaseRuntimeSpec<L>) {
    this.metrics = spec.metrics;
    this.delays = settings;
    this.driftFactor = settings.driftFactor;
    this.shutdownTimeoutMs = options.shutdownTimeoutMs;
    this.leases = new HeldLeases<L>({
      autoExtendRatio: settings.autoExtendRatio,
      logger: options.logger ?? new Logger(spec.loggerContext),
      logContext: spec.logContext,
      lost: () => this.metrics.lost(),
      tracing: spec.tracing,
      enter: spec.enter,
    });
  }

  /** Set once the application shuts down: new acquisitions are refused. */
  get closing(): boolean {
    return this.closed;
  }

  /**
   * One attempt (one round trip), recorded in the metrics: the lease, or why Redis did not grant it. Rejects with
   * the request's error when Redis does not answer (`unavailable`) or the application is shutting down, and with
   * {@link RedisRefusedError} when Redis refused the command (a configuration error: ACL, key type).
   */
  tryAcquire(request: LeaseRequest<L>): Promise<L | AttemptRefusal> {
    return this.measured(performance.now(), this.attempt(request));
  }

  /**
   * Acquires the lease, waiting up to `waitMs` with exponential backoff and jitter (never longer than the holder's
   * remaining TTL; a release by this instance wakes a local waiter at once). Rejects with the request's error when
   * the wait ends or Redis is unavailable, and with {@link RedisRefusedError} when Redis refused the command. Never
   * resolves with an expired lease.
   */
  acquire(request: LeaseRequest<L>, waitMs: number): Promise<L> {
    const startedAt = performance.now();
    const attempt = (): Promise<L | AttemptRefusal> => this.attempt(request);
    // No wait: one attempt, as attemptUntil would make, without its loop.
    const outcome =
      waitMs === 0
        ? attempt()
        : attemptUntil<L, AttemptRefusal>(attempt, isLease, startedAt + waitMs, this.delays, (ms) =>
            this.waiters.sleep(request.waitKey, ms),
          );
    return this.measured(startedAt, outcome).then((settled) => {
      if (settled instanceof Lease) return settled;
      throw request.notAcquired(settled.reason, settled.retryAfterMs);
    });
  }

  // The acquisition path is a chain of callbacks, not of async functions: while a lock's work runs in its async
  // context (`LockService.current()`), Node 20 runs a hook for every promise the process creates, so each promise
  // saved here is saved on every concurrent acquisition.
  private attempt(request: LeaseRequest<L>): Promise<L | AttemptRefusal> {
    if (this.closed) return Promise.reject(request.notAcquired('shutdown', 1000));
    const token = leaseTokens.take();
    const startedAt = performance.now();
    let pending: Promise<AttemptResult>;
    try {
      pending = request.send(token);
    } catch (error) {
      pending = Promise.reject(error);
    }
    return pending.then(
      (result): L | AttemptRefusal | Promise<AttemptRefusal> => {
        if (!result.acquired) return result;
        const lease = request.grant(token, result.fencingToken, startedAt);
        this.leases.add(lease, startedAt);
        // The reply came back after the lease's validity: its place may already be someone else's. Give it back.
        if (!lease.isHeld) return this.leases.releaseQuietly(lease).then(() => EXPIRED);
        return lease;
      },
      (error: unknown) => {
        // Fail closed (invariant 6): no answer means no lease, never "probably free". A refusal (NOPERM, WRONGTYPE …)
        // is not an outage: it is thrown as is, so the permission or key at fault is named, not "unavailable".
        throw refusalIn(error) ?? request.notAcquired('unavailable', 1000, { cause: error });
      },
    );
  }

  /** The outcome of an acquisition that began at `startedAt`, recorded in the metrics. */
  private measured(startedAt: number, acquisition: Promise<L | AttemptRefusal>): Promise<L | AttemptRefusal> {
    return acquisition.then(
      (outcome) => {
        this.metrics.acquisition(outcome instanceof Lease ? 'acquired' : outcome.reason, startedAt);
        return outcome;
      },
      (error: unknown) => {
        if (error instanceof LockNotAcquiredError) this.metrics.acquisition(error.reason, startedAt);
        else if (error instanceof RedisRefusedError) this.metrics.acquisition('refused', startedAt);
        throw error;
      },
    );
  }

  /** The context of the leases a store extends and releases; a release wakes a local waiter of `wakeKey`. */
  contextOf(store: LeaseStore, wakeKey: (lease: L) => string): LeaseContext<L> {
    const driftFactor = this.driftFactor;
    return {
      store,
      driftMs: (ttlMs) => Math.ceil(ttlMs * driftFactor) + 2,
      forget: (lease) => {
        const acquiredAt = this.leases.delete(lease);
        this.waiters.wakeOne(wakeKey(lease));
        if (acquiredAt !== undefined) this.metrics.released(acquiredAt);
      },
      extended: () => this.metrics.extended(),
    };
  }

  /**
   * At shutdown: refuse new leases, give running work up to `shutdownTimeoutMs` to finish, abort the rest, then
   * release every lease still held — before the connections close.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.closed = true;
    this.waiters.wakeAll();
    await this.leases.close(this.shutdownTimeoutMs);
  }
}

function isLease<L extends Lease>(outcome: L | AttemptRefusal): outcome is L {
  return outcome instanceof Lease;
}
