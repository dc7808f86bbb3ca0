import { Injectable } from '@nestjs/common';
import { LeaderElection, RunOnLeader } from 'nestjs-redis-patterns';

@Injectable()
export class ReportsJob {
  constructor(private readonly election: LeaderElection) {}

  // Call it from @nestjs/schedule's @Cron or any timer: only the leader of 'reports' runs it, the others skip it.
  @RunOnLeader('reports', { ttlMs: 15_000 })
  async publish(): Promise<void> {
    const term = this.election.currentTerm()!;
    console.log(`publishing as leader, fencing token ${term.fencingToken}`);
  }
}
