import { Inject, Injectable } from '@nestjs/common';
import { ScopedContext } from '../core/context/scoped-context';
import { LeaseMetrics } from '../lease/lease.metrics';
import { LEASE_SETTINGS, type LeaseSettings } from '../lease/lease.options';
import { LeaseRuntime } from '../lease/lease-runtime';
import { RESOLVED_OPTIONS } from '../redis-patterns.constants';
import type { ResolvedRedisPatternsOptions } from '../redis-patterns.options';
import type { Lock } from './lock';
import { LOCK_METRICS } from './lock.metrics';
import { LockTracing } from './lock.tracing';

/** A lock held by running `using()` work or a `@WithLock` method, with the signal that aborts when it is lost. */
export interface HeldLock {
  readonly lock: Lock;
  readonly signal: AbortSignal;
}

/** The innermost lock held by the running `using()` work or `@WithLock` method, per async context. */
const heldContext = new ScopedContext<HeldLock>();

/**
 * The locks this instance holds and the work running under them (mutex, read and write leases), shared by
 * `LockService` and `@WithLock`'s advisor, which inject it rather than reach through the public service: work held
 * by either runs in the same registry, so `current()` sees it, hold spans trace it and shutdown drains it.
 */
@Injectable()
export class LockRuntime extends LeaseRuntime<Lock> {
  constructor(@Inject(RESOLVED_OPTIONS) options: ResolvedRedisPatternsOptions, @Inject(LEASE_SETTINGS) settings: LeaseSettings) {
    super(options, settings, {
      loggerContext: 'RedisPatterns:Lock',
      logContext: 'LockService',
      metrics: new LeaseMetrics(LOCK_METRICS),
      tracing: new LockTracing(),
      enter: (lock, abort, work) =>
        heldContext.run(
          {
            lock,
            get signal() {
              return abort.signal;
            },
          },
          work,
        ),
    });
  }

  /** The innermost lock held in the current async context, if any. */
  held(): HeldLock | undefined {
    return heldContext.get();
  }
}
