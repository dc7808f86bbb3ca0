import { type BeforeApplicationShutdown, Logger } from '@nestjs/common';
import type { ResolvedCoreOptions } from '../core/options/resolve-options';
import { HeldLeases, type HeldLeasesOptions } from './held-leases';
import type { Lease, LeaseContext } from './lease';
import type { LeaseMetrics } from './lease.metrics';
import type { LeaseSettings } from './lease.options';
import type { LeaseStore } from './lease.store';
import { LocalWaiters } from './local-waiters';

/** How a lease runtime names itself and its leases (logs, metrics) and runs their work (tracing, async context). */
export interface LeaseRuntimeSpec<L extends Lease> extends Pick<HeldLeasesOptions<L>, 'logContext' | 'tracing' | 'enter'> {
  /** The logger context when the module has no logger of its own (`RedisPatterns:Lock`). */
  readonly loggerContext: string;
  readonly metrics: LeaseMetrics;
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

  protected constructor(options: ResolvedCoreOptions, settings: LeaseSettings, spec: LeaseRuntimeSpec<L>) {
    this.metrics = spec.metrics;
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
