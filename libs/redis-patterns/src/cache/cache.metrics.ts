import { type CounterMetric, type HistogramMetric, libraryMeter, type MetricAttributes, secondsSince } from '../core/telemetry/metrics';

/** How a cache read was answered: from Redis (`hit`, `stale`, `miss`), from the near cache, or not at all. */
export type CacheResult = 'hit' | 'miss' | 'stale' | 'near_hit' | 'error';

const RESULTS: readonly CacheResult[] = ['hit', 'miss', 'stale', 'near_hit', 'error'];

/** The cache's metrics: `redis_patterns.cache.requests` by result and `redis_patterns.cache.loader.duration`. */
export class CacheMetrics {
  private readonly requests: CounterMetric;
  private readonly loaderDuration: HistogramMetric;
  // One attribute object per result, made once: a hit allocates nothing for its measurement.
  private readonly byResult = Object.fromEntries(RESULTS.map((result) => [result, Object.freeze({ result })])) as unknown as Record<
    CacheResult,
    MetricAttributes
  >;

  constructor(meter = libraryMeter()) {
    this.requests = meter.counter('redis_patterns.cache.requests', 'Cache reads, by how they were answered', '{request}');
    this.loaderDuration = meter.histogram(
      'redis_patterns.cache.loader.duration',
      'Time the source (the loader or the decorated method) took on a miss',
      's',
    );
  }

  request(result: CacheResult): void {
    this.requests.add(1, this.byResult[result]);
  }

  loaded(startedAt: number): void {
    this.loaderDuration.record(secondsSince(startedAt));
  }
}
