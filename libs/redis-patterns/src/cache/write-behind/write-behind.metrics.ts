import {
  type CounterMetric,
  type HistogramMetric,
  libraryMeter,
  type MetricAttributes,
  type Observation,
} from '../../core/telemetry/metrics';

/** What happened to changes of a queue (the `outcome` attribute). */
export type WriteBehindOutcome = 'flushed' | 'retried' | 'dead_lettered';

/**
 * Write-behind's metrics, per `queue` (a name the application chose, never a key):
 * `redis_patterns.write_behind.changes` by outcome, `redis_patterns.write_behind.flush.lag` (seconds from a
 * change's announcement to its writer's success: how stale the data source was) and the
 * `redis_patterns.write_behind.pending` gauge (changes not yet settled).
 */
export class WriteBehindMetrics {
  private readonly changes: CounterMetric;
  private readonly lag: HistogramMetric;
  private readonly attributes = new Map<string, MetricAttributes>();
  private readonly pending: Observation;

  constructor(pendingOf: () => Promise<Array<{ queue: string; pending: number }>>, meter = libraryMeter()) {
    this.changes = meter.counter('redis_patterns.write_behind.changes', 'Write-behind changes, by what became of them', '{change}');
    this.lag = meter.histogram(
      'redis_patterns.write_behind.flush.lag',
      "Time from a change's write to its writer's success (how far the data source was behind)",
      's',
    );
    this.pending = meter.observableGauge(
      'redis_patterns.write_behind.pending',
      'Write-behind changes not yet flushed or dead-lettered',
      '{change}',
      async (observe) => {
        for (const { queue, pending } of await pendingOf()) observe(pending, this.of(queue));
      },
    );
  }

  changed(queue: string, outcome: WriteBehindOutcome, count: number): void {
    if (count > 0) this.changes.add(count, { ...this.of(queue), outcome });
  }

  flushed(queue: string, lagMs: number): void {
    this.lag.record(Math.max(0, lagMs) / 1000, this.of(queue));
  }

  close(): void {
    this.pending.remove();
  }

  private of(queue: string): MetricAttributes {
    let attributes = this.attributes.get(queue);
    if (!attributes) this.attributes.set(queue, (attributes = Object.freeze({ queue })));
    return attributes;
  }
}
