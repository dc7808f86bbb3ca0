import type { LeaseMetricsSubject } from '../lease/lease.metrics';

/** The locks' instruments (`redis_patterns.lock.*`), counted by a LeaseMetrics; read and write leases count as locks. */
export const LOCK_METRICS: LeaseMetricsSubject = {
  prefix: 'redis_patterns.lock',
  one: 'lock',
  many: 'locks',
  calls: 'tryAcquire, acquire, using, @WithLock',
};
