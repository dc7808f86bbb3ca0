import { histogramQuantile } from './histogram-quantile';
import { type Buckets, CACHE_RESULTS, DECISION_OUTCOMES, type DecisionOutcome, emptyTotals, type LibraryTotals } from './library-totals';

/** One point of the status page's charts: what the library's metrics did during one sampling interval. */
export interface StatusSample {
  /** End of the interval (epoch ms). */
  at: number;
  /** (hit + near_hit) over every cache read of the interval, as docs/observability.md defines it; null without reads. */
  hitRatio: number | null;
  cacheReadsPerSecond: number;
  decisionsPerSecond: Record<DecisionOutcome, number>;
  /** From the bucket counts the interval added to `redis_patterns.lock.wait.duration`; null without acquisitions. */
  lockWaitP99Ms: number | null;
  /** Stream entries the consumer groups acknowledged (`redis_patterns.stream.entries`, outcome `acked`). */
  streamAckedPerSecond: number;
  streamLag: number | null;
  streamPending: number | null;
}

/**
 * What the counters of `current` added since `previous`; the gauges keep their current values. A counter lower
 * than before has restarted from zero, so its whole value is the increase (Prometheus' `increase()` rule): this
 * happens when a second app in the same process takes over an observable counter (the e2e tests create several).
 */
export function increaseBetween(previous: LibraryTotals, current: LibraryTotals): LibraryTotals {
  const added = emptyTotals();
  for (const result of CACHE_RESULTS) added.cache[result] = increase(previous.cache[result], current.cache[result]);
  for (const outcome of DECISION_OUTCOMES) added.decisions[outcome] = increase(previous.decisions[outcome], current.decisions[outcome]);
  added.lockContention = increase(previous.lockContention, current.lockContention);
  added.lockWait = bucketIncrease(previous.lockWait, current.lockWait);
  added.streamAcked = increase(previous.streamAcked, current.streamAcked);
  added.streamLag = current.streamLag;
  added.streamPending = current.streamPending;
  return added;
}

/** Adds an interval's increase to running totals (the status cards count from the app's start). */
export function accumulate(into: LibraryTotals, added: LibraryTotals): void {
  for (const result of CACHE_RESULTS) into.cache[result] += added.cache[result];
  for (const outcome of DECISION_OUTCOMES) into.decisions[outcome] += added.decisions[outcome];
  into.lockContention += added.lockContention;
  into.streamAcked += added.streamAcked;
  into.streamLag = added.streamLag;
  into.streamPending = added.streamPending;
}

/** The chart point for an interval of `seconds` ending at `at` during which the counters grew by `added`. */
export function sampleOf(added: LibraryTotals, seconds: number, at: number): StatusSample {
  const reads = CACHE_RESULTS.reduce((sum, result) => sum + added.cache[result], 0);
  const waitP99 = histogramQuantile(0.99, added.lockWait);
  return {
    at,
    hitRatio: reads === 0 ? null : (added.cache.hit + added.cache.near_hit) / reads,
    cacheReadsPerSecond: reads / seconds,
    decisionsPerSecond: Object.fromEntries(DECISION_OUTCOMES.map((o) => [o, added.decisions[o] / seconds])) as Record<
      DecisionOutcome,
      number
    >,
    lockWaitP99Ms: waitP99 === null ? null : waitP99 * 1000,
    streamAckedPerSecond: added.streamAcked / seconds,
    streamLag: added.streamLag,
    streamPending: added.streamPending,
  };
}

function increase(previous: number, current: number): number {
  return current >= previous ? current - previous : current;
}

function bucketIncrease(previous: Buckets, current: Buckets): Buckets {
  const sum = (buckets: Buckets) => buckets.counts.reduce((total, count) => total + count, 0);
  if (previous.counts.length !== current.counts.length || sum(current) < sum(previous)) {
    return { boundaries: current.boundaries, counts: [...current.counts] };
  }
  return { boundaries: current.boundaries, counts: current.counts.map((count, i) => Math.max(0, count - previous.counts[i])) };
}
