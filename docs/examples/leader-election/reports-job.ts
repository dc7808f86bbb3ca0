import { Injectable, Module, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { LeaderElection, RedisPatternsModule, RunOnLeader } from 'nestjs-redis-patterns';

/** Stands in for your store: it keeps the highest fencing token it accepted and refuses older ones. */
@Injectable()
export class ReportStore {
  private highestToken = 0;
  readonly published: string[] = [];

  async pending(): Promise<string[]> {
    return ['daily'];
  }

  async publish(batch: string, { fencingToken }: { fencingToken: number }): Promise<void> {
    if (fencingToken < this.highestToken) throw new Error(`a newer term (${this.highestToken}) already wrote`);
    this.highestToken = fencingToken;
    this.published.push(batch);
  }
}

@Injectable()
export class ReportsJob implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly election: LeaderElection,
    private readonly reports: ReportStore,
  ) {}

  // Any timer works: with @nestjs/schedule, put @Cron(CronExpression.EVERY_MINUTE) on publish() instead.
  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.publish(), 60_000);
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  @RunOnLeader('reports', { ttlMs: 15_000 })
  async publish(): Promise<void> {
    const term = this.election.currentTerm()!; // the term this call runs under
    for (const batch of await this.reports.pending()) {
      term.signal.throwIfAborted(); // stop as soon as the term is known to be over
      await this.reports.publish(batch, { fencingToken: term.fencingToken }); // refused if a newer term wrote
    }
  }
}

@Module({
  imports: [RedisPatternsModule.forRoot({ connection: process.env.REDIS_URL })],
  providers: [ReportsJob, ReportStore],
})
export class AppModule {}
