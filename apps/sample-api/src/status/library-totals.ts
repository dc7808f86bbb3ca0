import { DataPointType, type MetricData, type ResourceMetrics } from '@opentelemetry/sdk-metrics';

/** The library's instrumentation scope (its meter name). */
const LIBRARY_SCOPE = 'nestjs-redis-patterns';

/** How a cache read was answered (the `result` attribute of `redis_patterns.cache.requests`). */
export const CACHE_RESULTS = ['hit', 'near_hit', 'stale', 'miss', 'error'] as const;
export type CacheResultName = (typeof CACHE_RESULTS)[number];

/** How a rate-limit decision ended (the `outcome` attribute of `redis_patterns.rate_limit.decisions`). */
export const DECISION_OUTCOMES = ['allowed', 'denied', 'failed_open', 'failed_closed', 'fallback'] as const;
export type DecisionOutcome = (typeof DECISION_OUTCOMES)[number];

/** Explicit-bucket histogram counts: `counts[i]` values fell at or under `boundaries[i]`, the last one above all. */
export interface Buckets {
  boundaries: number[];
  counts: number[];
}

/**
 * What the status page reads from one collection of the library's metrics: cumulative counts since the SDK was
 * registered (counters and the lock-wait histogram, summed over the attributes the page does not split by), and
 * the current values of the consumer-group gauges.
 */
export interface LibraryTotals {
  cache: Record<CacheResultName, number>;
  decisions: Record<DecisionOutcome, number>;
  lockContention: number;
  /** Every acquisition outcome together: the wait of a caller that got the lock and of one that gave up. */
  lockWait: Buckets;
  streamAcked: number;
  /** Summed over the running consumer groups; null when no group could be read (no consumer, or Redis < 7). */
  streamLag: number | null;
  streamPending: number | null;
}

export function emptyTotals(): LibraryTotals {
  return {
    cache: Object.fromEntries(CACHE_RESULTS.map((r) => [r, 0])) as Record<CacheResultName, number>,
    decisions: Object.fromEntries(DECISION_OUTCOMES.map((o) => [o, 0])) as Record<DecisionOutcome, number>,
    lockContention: 0,
    lockWait: { boundaries: [], counts: [] },
    streamAcked: 0,
    streamLag: null,
    streamPending: null,
  };
}

/** Reads the library's instruments (by their documented names, see docs/observability.md) from a collection. */
export function readLibraryTotals(collected: ResourceMetrics): LibraryTotals {
  const totals = emptyTotals();
  const metrics = collected.scopeMetrics.filter((scope) => scope.scope.name === LIBRARY_SCOPE).flatMap((scope) => scope.metrics);
  for (const metric of metrics) {
    switch (metric.descriptor.name) {
      case 'redis_patterns.cache.requests':
        forEachNumber(metric, (value, attributes) => {
          const result = attributes.result as CacheResultName;
          if (result in totals.cache) totals.cache[result] += value;
        });
        break;
      case 'redis_patterns.rate_limit.decisions':
        forEachNumber(metric, (value, attributes) => {
          const outcome = attributes.outcome as DecisionOutcome;
          if (outcome in totals.decisions) totals.decisions[outcome] += value;
        });
        break;
      case 'redis_patterns.lock.acquisitions':
        forEachNumber(metric, (value, attributes) => {
          if (attributes.outcome === 'contention') totals.lockContention += value;
        });
        break;
      case 'redis_patterns.lock.wait.duration':
        if (metric.dataPointType === DataPointType.HISTOGRAM) {
          for (const point of metric.dataPoints) addBuckets(totals.lockWait, point.value.buckets);
        }
        break;
      case 'redis_patterns.stream.entries':
        forEachNumber(metric, (value, attributes) => {
          if (attributes.outcome === 'acked') totals.streamAcked += value;
        });
        break;
      case 'redis_patterns.stream.consumer.lag':
        forEachNumber(metric, (value) => (totals.streamLag = (totals.streamLag ?? 0) + value));
        break;
      case 'redis_patterns.stream.consumer.pending':
        forEachNumber(metric, (value) => (totals.streamPending = (totals.streamPending ?? 0) + value));
        break;
    }
  }
  return totals;
}

function forEachNumber(metric: MetricData, visit: (value: number, attributes: Record<string, unknown>) => void): void {
  if (metric.dataPointType !== DataPointType.SUM && metric.dataPointType !== DataPointType.GAUGE) return;
  for (const point of metric.dataPoints) visit(point.value, point.attributes);
}

/** Adds `source` into `target` bucket by bucket (the data points of one histogram share their boundaries). */
function addBuckets(target: Buckets, source: Buckets): void {
  if (target.counts.length === 0) {
    target.boundaries = [...source.boundaries];
    target.counts = source.counts.map(() => 0);
  }
  if (source.counts.length !== target.counts.length) return;
  source.counts.forEach((count, i) => (target.counts[i] += count));
}
