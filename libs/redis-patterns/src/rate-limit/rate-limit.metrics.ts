import { type CounterMetric, type HistogramMetric, libraryMeter, type MetricAttributes, secondsSince } from '../core/telemetry/metrics';

/** How a decision ended: by Redis (`allowed`, `denied`), or without it (the limiter's outage policy). */
export type RateLimitOutcome = 'allowed' | 'denied' | 'failed_open' | 'failed_closed' | 'fallback';

const OUTCOMES: readonly RateLimitOutcome[] = ['allowed', 'denied', 'failed_open', 'failed_closed', 'fallback'];

/** Beyond this many limiter names, further names are recorded as `other` (attributes stay low-cardinality). */
const MAX_LIMITERS = 500;

/**
 * The rate limiter's metrics: `redis_patterns.rate_limit.decisions` and `redis_patterns.rate_limit.decision.duration`,
 * by outcome and limiter name. Attribute objects are made once per limiter, not per decision.
 */
export class RateLimitMetrics {
  private readonly decisions: CounterMetric;
  private readonly duration: HistogramMetric;
  private readonly attributes = new Map<string, Readonly<Record<RateLimitOutcome, MetricAttributes>>>();

  constructor(meter = libraryMeter()) {
    this.decisions = meter.counter('redis_patterns.rate_limit.decisions', 'Rate-limit decisions, by outcome and limiter', '{decision}');
    this.duration = meter.histogram(
      'redis_patterns.rate_limit.decision.duration',
      'Time to take a rate-limit decision, Redis round trip included',
      's',
    );
  }

  /** Records one decision of `limiter` (a decorator's name, or `RateLimiterService.consume`) begun at `startedAt`. */
  record(limiter: string, outcome: RateLimitOutcome, startedAt: number): void {
    const attributes = this.attributesOf(limiter)[outcome];
    this.decisions.add(1, attributes);
    this.duration.record(secondsSince(startedAt), attributes);
  }

  private attributesOf(limiter: string): Readonly<Record<RateLimitOutcome, MetricAttributes>> {
    let byOutcome = this.attributes.get(limiter);
    if (!byOutcome) {
      const name = this.attributes.size < MAX_LIMITERS ? limiter : 'other';
      const entries = OUTCOMES.map((outcome) => [outcome, Object.freeze({ outcome, limiter: name })] as const);
      byOutcome = Object.fromEntries(entries) as unknown as Record<RateLimitOutcome, MetricAttributes>;
      if (name !== 'other') this.attributes.set(limiter, byOutcome);
    }
    return byOutcome;
  }
}
