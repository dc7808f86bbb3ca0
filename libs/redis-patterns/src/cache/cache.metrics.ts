import { type HistogramMetric, libraryMeter, type MetricAttributes, type Observation, secondsSince } from '../core/telemetry/metrics';

/** How a cache read was answered: from Redis (`hit`, `stale`, `miss`), from the near cache, or not at all. */
export type CacheResult = 'hit' | 'miss' | 'stale' | 'near_hit' | 'error';

const RESULTS: readonly CacheResult[] = ['hit', 'miss', 'stale', 'near_hit', 'error'];

/**
 * The cache's metrics: `redis_patterns.cache.requests` by result and `redis_patterns.cache.loader.duration`. A hit
 * costs a few µs, so counting it only increments a number; the totals are reported when a reader collects (an
 * observable counter) rather than paying the SDK's per-call attribute handling on every read.
 */
export class CacheMetrics {
  private readonly loaderDuration: HistogramMetric;
  private readonly counts = new Float64Array(RESULTS.length);
  private readonly observation: Observation;

  constructor(meter = libraryMeter()) {
    const byResult = RESULTS.map((result): MetricAttributes => Object.freeze({ result }));
    this.observation = meter.observableCounter(
      'redis_patterns.cache.requests',
      'Cache reads, by how they were answered',
      '{request}',
      (observe) => {
        RESULTS.forEach((_, i) => {
          if (this.counts[i] > 0) observe(this.counts[i], byResult[i]);
        });
      },
    );
    this.loaderDuration = meter.histogram(
      'redis_patterns.cache.loader.duration',
      'Time the source (the loader or the decorated method) took on a miss',
      's',
    );
  }

  /** Stops reporting (the application is closing). */
  close(): void {
    this.observation.remove();
  }

  request(result: CacheResult): void {
    this.counts[RESULT_INDEX[result]]++;
  }

  loaded(startedAt: number): void {
    this.loaderDuration.record(secondsSince(startedAt));
  }
}

const RESULT_INDEX = Object.fromEntries(RESULTS.map((result, i) => [result, i])) as Record<CacheResult, number>;
