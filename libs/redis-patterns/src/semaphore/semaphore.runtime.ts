import { Inject, Injectable } from '@nestjs/common';
import type { LeaseContext } from '../lease/lease';
import { LeaseMetrics } from '../lease/lease.metrics';
import { LEASE_SETTINGS, type LeaseSettings } from '../lease/lease.options';
import { LeaseRuntime } from '../lease/lease-runtime';
import { RESOLVED_OPTIONS } from '../redis-patterns.constants';
import type { ResolvedRedisPatternsOptions } from '../redis-patterns.options';
import type { Permit } from './permit';
import { SEMAPHORE_STORE, type SemaphoreStore } from './semaphore.store';

/**
 * The permits this instance holds and the work running under them, shared by `SemaphoreService` and
 * `@WithPermit`'s advisor, which inject it rather than reach through the public service: permits taken by either are
 * extended, counted and given back at shutdown by the same registry.
 */
@Injectable()
export class SemaphoreRuntime extends LeaseRuntime<Permit> {
  /** What every permit extends and releases through; a release wakes a local waiter of the semaphore. */
  readonly context: LeaseContext<Permit>;

  constructor(
    @Inject(RESOLVED_OPTIONS) options: ResolvedRedisPatternsOptions,
    @Inject(LEASE_SETTINGS) settings: LeaseSettings,
    @Inject(SEMAPHORE_STORE) store: SemaphoreStore,
  ) {
    super(options, settings, {
      loggerContext: 'RedisPatterns:Semaphore',
      logContext: 'SemaphoreService',
      metrics: new LeaseMetrics({
        prefix: 'redis_patterns.semaphore',
        one: 'permit',
        many: 'permits',
        calls: 'tryAcquire, acquire, using, @WithPermit',
      }),
    });
    this.context = this.contextOf(store, (permit) => permit.keys.lease);
  }
}
