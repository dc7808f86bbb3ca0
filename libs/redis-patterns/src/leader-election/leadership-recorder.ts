import { performance } from 'node:perf_hooks';
import type { LoggerService } from '@nestjs/common';
import { filter, type Observable, Subject } from 'rxjs';
import type { LeadershipChange } from './campaign';
import { LeaderElectionMetrics } from './leader-election.metrics';
import type { LeaderTerm } from './leader-term';

/**
 * Where every change of leadership goes: the metrics, the log (a loss the instance did not choose is a warning), and
 * the Observable of `LeaderElection.changes()`.
 */
export class LeadershipRecorder {
  private readonly subject = new Subject<LeadershipChange>();
  private readonly termStarts = new WeakMap<LeaderTerm, number>();
  private readonly metrics: LeaderElectionMetrics;

  /** `resources` tells the gauge, at collection time, each resource campaigned for and whether this instance leads it. */
  constructor(
    private readonly logger: LoggerService,
    resources: () => Iterable<[resource: string, leader: boolean]>,
  ) {
    this.metrics = new LeaderElectionMetrics(resources);
  }

  record(change: LeadershipChange): void {
    const { resource, term } = change;
    if (change.type === 'gained') {
      this.termStarts.set(term, performance.now());
      this.metrics.changed(resource, 'gained');
      this.logger.log(`This instance is now the leader of "${resource}" (fencing token ${term.fencingToken}).`);
    } else {
      this.metrics.changed(resource, change.reason);
      const startedAt = this.termStarts.get(term);
      if (startedAt !== undefined) this.metrics.ended(resource, startedAt);
      const message = `This instance is no longer the leader of "${resource}": ${(term.signal.reason as Error).message}`;
      if (change.reason === 'lost' || change.reason === 'expired') this.logger.warn(message);
      else this.logger.log(message);
    }
    this.subject.next(change);
  }

  /** A `@RunOnLeader` call, run or skipped. */
  ran(resource: string, outcome: 'ran' | 'skipped'): void {
    this.metrics.ran(resource, outcome);
  }

  changes(resource?: string): Observable<LeadershipChange> {
    const all = this.subject.asObservable();
    return resource === undefined ? all : all.pipe(filter((change) => change.resource === resource));
  }

  /** At shutdown: completes the Observable and stops the gauge. */
  close(): void {
    this.metrics.close();
    this.subject.complete();
  }
}
