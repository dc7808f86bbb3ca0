import {
  type CounterMetric,
  type HistogramMetric,
  libraryMeter,
  type MetricAttributes,
  type Observation,
  secondsSince,
} from '../core/telemetry/metrics';
import type { TermEndReason } from './leader-term-ended.error';

/** A change of leadership as the metrics count it: a term gained, or the reason it ended. */
export type TermChange = 'gained' | TermEndReason;

/**
 * Leader election's metrics. Every attribute is a resource — a configured name, validated as one (low cardinality) —
 * plus a fixed set of values.
 */
export class LeaderElectionMetrics {
  private readonly changes: CounterMetric;
  private readonly terms: HistogramMetric;
  private readonly runs: CounterMetric;
  private readonly leading: Observation;

  /** `resources` reports, at collection time, each resource this instance campaigned for and whether it leads it now. */
  constructor(resources: () => Iterable<[resource: string, leader: boolean]>, meter = libraryMeter()) {
    this.changes = meter.counter(
      'redis_patterns.leader_election.term_changes',
      'Leader terms gained by this instance, and terms ended by reason, per resource',
      '{change}',
    );
    this.terms = meter.histogram('redis_patterns.leader_election.term.duration', 'How long a leader term lasted, per resource', 's');
    this.runs = meter.counter(
      'redis_patterns.leader_election.runs',
      '@RunOnLeader calls, run (this instance leads the resource) or skipped, per resource',
      '{call}',
    );
    this.leading = meter.observableGauge(
      'redis_patterns.leader_election.leader',
      '1 while this instance leads the resource, 0 while it does not (a follower, or resigned)',
      '{leader}',
      async (observe) => {
        for (const [resource, leader] of resources()) observe(leader ? 1 : 0, { resource });
      },
    );
  }

  changed(resource: string, change: TermChange): void {
    this.changes.add(1, { resource, change });
  }

  ended(resource: string, startedAt: number): void {
    this.terms.record(secondsSince(startedAt), { resource });
  }

  ran(resource: string, outcome: 'ran' | 'skipped'): void {
    this.runs.add(1, { resource, outcome } satisfies MetricAttributes);
  }

  /** Stops reporting the gauge (the SDK would otherwise keep a closed application's callback). */
  close(): void {
    this.leading.remove();
  }
}
