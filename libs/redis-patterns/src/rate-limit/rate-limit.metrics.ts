import { type HistogramMetric, libraryMeter, type MetricAttributes, type Observation, secondsSince } from '../core/telemetry/metrics';

/** How a decision ended: by Redis (`allowed`, `denied`), or without it (the limiter's outage policy). */
export type RateLimitOutcome = 'allowed' | 'denied' | 'failed_open' | 'failed_closed' | 'fallback';

const OUTCOMES: readonly RateLimitOutcome[] = ['allowed', 'denied', 'failed_open', 'failed_closed', 'fallback'];

/** Beyond this many limiter names, further names are recorded as `other` (attributes stay low-cardinality). */
const MAX_LIMITERS = 500;

/** Every how many decisions one duration is recorded (per limiter and outcome, so rare outcomes are seen too). */
const DURATION_SAMPLING = 8;

/**
 * The rate limiter's metrics: `redis_patterns.rate_limit.decisions` (every decision, by outcome and limiter) and
 * `redis_patterns.rate_limit.decision.duration` (a sample of 1 in 8 decisions). A decision costs a few µs of
 * client CPU, so the hot path only increments a number: the totals are reported when a reader collects (an
 * observable counter), and the SDK's per-call attribute handling is paid on one decision in eight.
 */
export class RateLimitMetrics {
  private readonly duration: HistogramMetric;
  private readonly limiters = new Map<string, LimiterTotals>();

  private readonly observation: Observation;

  constructor(meter = libraryMeter()) {
    this.observation = meter.observableCounter(
      'redis_patterns.rate_limit.decisions',
      'Rate-limit decisions, by outcome and limiter',
      '{decision}',
      (observe) => {
        for (const totals of this.limiters.values()) {
          OUTCOMES.forEach((outcome, i) => {
            if (totals.counts[i] > 0) observe(totals.counts[i], totals.attributes[outcome]);
          });
        }
      },
    );
    this.duration = meter.histogram(
      'redis_patterns.rate_limit.decision.duration',
      'Time to take a rate-limit decision, Redis round trip included (1 in 8 decisions)',
      's',
    );
  }

  /** Stops reporting (the application is closing). */
  close(): void {
    this.observation.remove();
  }

  /** Records one decision of `limiter` (a decorator's name, or `RateLimiterService.consume`) begun at `startedAt`. */
  record(limiter: string, outcome: RateLimitOutcome, startedAt: number): void {
    const totals = this.totalsOf(limiter);
    const index = OUTCOME_INDEX[outcome];
    if (totals.counts[index]++ % DURATION_SAMPLING === 0) this.duration.record(secondsSince(startedAt), totals.attributes[outcome]);
  }

  private totalsOf(limiter: string): LimiterTotals {
    let totals = this.limiters.get(limiter);
    if (!totals) {
      const name = this.limiters.size < MAX_LIMITERS ? limiter : 'other';
      totals = this.limiters.get(name);
      if (!totals) {
        const entries = OUTCOMES.map((outcome) => [outcome, Object.freeze({ outcome, limiter: name })] as const);
        totals = {
          attributes: Object.fromEntries(entries) as unknown as Record<RateLimitOutcome, MetricAttributes>,
          counts: new Float64Array(OUTCOMES.length),
        };
        this.limiters.set(name, totals);
      }
    }
    return totals;
  }
}

interface LimiterTotals {
  readonly attributes: Readonly<Record<RateLimitOutcome, MetricAttributes>>;
  readonly counts: Float64Array;
}

const OUTCOME_INDEX = Object.fromEntries(OUTCOMES.map((outcome, i) => [outcome, i])) as Record<RateLimitOutcome, number>;
