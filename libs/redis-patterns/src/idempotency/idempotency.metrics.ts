import { type CounterMetric, libraryMeter, type MetricAttributes } from '../core/telemetry/metrics';

/** How a call guarded by an idempotency key ended. */
export type IdempotencyOutcome = 'ran' | 'replayed' | 'conflict' | 'key_reused' | 'unavailable' | 'failed_open';

const OUTCOMES: readonly IdempotencyOutcome[] = ['ran', 'replayed', 'conflict', 'key_reused', 'unavailable', 'failed_open'];

/**
 * `redis_patterns.idempotency.calls` by outcome: first calls that ran, duplicates answered from the stored result,
 * duplicates refused while the first ran (409) or with another payload (422), and calls without Redis (refused, or
 * run unguarded with `failOpen`). Attributes are pre-bound: never the key, the scope or the caller.
 */
export class IdempotencyMetrics {
  private readonly calls: CounterMetric;
  private readonly byOutcome: Readonly<Record<IdempotencyOutcome, MetricAttributes>>;

  constructor(meter = libraryMeter()) {
    this.calls = meter.counter('redis_patterns.idempotency.calls', 'Calls guarded by an idempotency key, by outcome', '{call}');
    const byOutcome = {} as Record<IdempotencyOutcome, MetricAttributes>;
    for (const outcome of OUTCOMES) byOutcome[outcome] = Object.freeze({ outcome });
    this.byOutcome = byOutcome;
  }

  record(outcome: IdempotencyOutcome): void {
    this.calls.add(1, this.byOutcome[outcome]);
  }
}
