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
 * Leader election's metrics. Every attribute is a role — a configured name, validated as one (low cardinality) —
 * plus a fixed set of values.
 */
export class LeaderElectionMetrics {
  private readonly changes: CounterMetric;
  private readonly terms: HistogramMetric;
  private readonly runs: CounterMetric;
  private readonly leading: Observation;

  /** `roles` reports, at collection time, each role this instance campaigned for and whether it leads it now. */
  constructor(roles: () => Iterable<[role: string, leader: boolean]>, meter = libraryMeter()) {
    this.changes = meter.counter(
      'redis_patterns.leader_election.term_changes',
      'Leader terms gained by this instance, and terms ended by reason, per role',
      '{change}',
    );
    this.terms = meter.histogram('redis_patterns.leader_election.term.duration', 'How long a leader term lasted, per role', 's');
    this.runs = meter.counter(
      'redis_patterns.leader_election.runs',
      '@RunOnLeader calls, run (this instance leads the role) or skipped, per role',
      '{call}',
    );
    this.leading = meter.observableGauge(
      'redis_patterns.leader_election.leader',
      '1 while this instance leads the role, 0 while it does not (a follower, or resigned)',
      '{leader}',
      async (observe) => {
        for (const [role, leader] of roles()) observe(leader ? 1 : 0, { role });
      },
    );
  }

  changed(role: string, change: TermChange): void {
    this.changes.add(1, { role, change });
  }

  ended(role: string, startedAt: number): void {
    this.terms.record(secondsSince(startedAt), { role });
  }

  ran(role: string, outcome: 'ran' | 'skipped'): void {
    this.runs.add(1, { role, outcome } satisfies MetricAttributes);
  }

  /** Stops reporting the gauge (the SDK would otherwise keep a closed application's callback). */
  close(): void {
    this.leading.remove();
  }
}
