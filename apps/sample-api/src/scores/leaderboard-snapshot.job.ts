import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { LeaderElection, RunOnLeader } from 'nestjs-redis-patterns';
import { CappedList, Leaderboard } from 'nestjs-redis-patterns/structures';
import { BOARD } from './scores.controller';

/** The capped list of leaderboard snapshots, newest first. */
export const SNAPSHOTS = 'leaderboard-snapshots';

/** A snapshot of the top three, taken by whichever instance leads the `leaderboard-snapshot` resource. */
export interface LeaderboardSnapshot {
  at: string;
  top: Array<{ member: string; score: number }>;
  /** The term's fencing token: a store receiving snapshots could refuse one from a leader that was replaced. */
  fencingToken: string;
  instance: string;
}

/**
 * A scheduled job every instance runs and only the leader executes: every few seconds the top three go to a capped
 * list. With @nestjs/schedule this would be `@Cron(...)` on `snapshot()`; a plain interval keeps the sample's
 * dependencies small. Another instance takes over within the lease (10 s) when the leader dies.
 */
@Injectable()
export class LeaderboardSnapshotJob implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(LeaderboardSnapshotJob.name);
  private timer?: NodeJS.Timeout;
  private readonly instance = `${process.pid}`;
  runs = 0;

  constructor(
    private readonly election: LeaderElection,
    private readonly leaderboard: Leaderboard,
    private readonly snapshots: CappedList,
  ) {}

  onApplicationBootstrap(): void {
    const everyMs = Number(process.env.SAMPLE_SNAPSHOT_EVERY_MS ?? 5_000);
    this.timer = setInterval(() => void this.snapshot().catch((error: unknown) => this.logger.warn(String(error))), everyMs);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** Followers skip the call (it resolves undefined); the leader writes a snapshot with its term's fencing token. */
  @RunOnLeader('leaderboard-snapshot', { ttlMs: 10_000 })
  async snapshot(): Promise<LeaderboardSnapshot> {
    const term = this.election.currentTerm()!;
    const top = (await this.leaderboard.top(BOARD, 3)).map(({ member, score }) => ({ member, score }));
    const snapshot = { at: new Date().toISOString(), top, fencingToken: String(term.fencingToken), instance: this.instance };
    await this.snapshots.push(SNAPSHOTS, snapshot);
    this.runs++;
    return snapshot;
  }

  /** Whether this instance leads the resource now, and the latest snapshots (any instance's). */
  async status(): Promise<{ leader: boolean; runsHere: number; latest: LeaderboardSnapshot[] }> {
    return {
      leader: this.election.isLeader('leaderboard-snapshot'),
      runsHere: this.runs,
      latest: await this.snapshots.range<LeaderboardSnapshot>(SNAPSHOTS, 0, 4),
    };
  }
}
