import { Controller, Get, Header, HttpCode, type MessageEvent, Post, Sse } from '@nestjs/common';
import { Leaderboard, UniqueCounter } from 'nestjs-redis-patterns/structures';
import { concatMap, from, map, type Observable, startWith } from 'rxjs';
import { visitorsKey } from '../events/visitor-stats.consumer';
import { BOARD } from '../scores/scores.controller';
import { RequestCounter } from './request-counter';
import { STATUS_PAGE_HTML } from './status-page.html';
import { HISTORY_SAMPLES, SAMPLE_INTERVAL_MS, StatusHistory } from './status-history';
import type { StatusSample } from './status-sample';
import { type BurstReport, TrafficGenerator } from './traffic-generator';

export interface StatusSnapshot {
  /** Cache reads since this app started, from `redis_patterns.cache.requests` (hits include near-cache hits). */
  cache: { hitRatio: number; hits: number; misses: number; stale: number };
  /** Rate-limit decisions that refused a request (`denied`, `failed_closed`) since this app started. */
  rateLimited: number;
  /** Lock acquisitions refused because another caller held the lock, since this app started. */
  lockContention: number;
  /** HTTP requests answered by this app. */
  requests: number;
  /** The consumer groups' backlog (null when it cannot be read) and the entries acknowledged since the start. */
  stream: { lag: number | null; pending: number | null; processed: number };
  uniqueVisitors: number;
  leaderboard: Array<{ member: string; score: number; rank: number }>;
  traffic: { running: boolean; lastBurst: BurstReport | null };
  sampleIntervalMs: number;
  historySamples: number;
  /** Every sample of the last minutes (GET /status and the first SSE message); later SSE messages carry `sample`. */
  history?: StatusSample[];
  sample?: StatusSample;
}

@Controller()
export class StatusController {
  constructor(
    private readonly requests: RequestCounter,
    private readonly statusHistory: StatusHistory,
    private readonly traffic: TrafficGenerator,
    private readonly leaderboard: Leaderboard,
    private readonly visitors: UniqueCounter,
  ) {}

  /** The live status page (static HTML; its script listens to /status/stream). */
  @Get()
  @Header('Content-Type', 'text/html; charset=utf-8')
  page(): string {
    return STATUS_PAGE_HTML;
  }

  /**
   * Server-sent events: the whole history first, then one message per sample (each second). Subscribing to the
   * samples before the history is read means none falls between the two.
   */
  @Sse('status/stream')
  stream(): Observable<MessageEvent> {
    return this.statusHistory.sampled$.pipe(
      startWith(undefined),
      concatMap((sample) => from(this.collect(sample ? { sample } : { history: this.statusHistory.history() }))),
      map((data) => ({ data })),
    );
  }

  @Get('status')
  snapshot(): Promise<StatusSnapshot> {
    return this.collect({ history: this.statusHistory.history() });
  }

  /** Starts a burst of traffic against this app's own routes (202); 409 while one is running. */
  @Post('status/traffic')
  @HttpCode(202)
  generateTraffic(): BurstReport {
    return this.traffic.start();
  }

  private async collect(points: Pick<StatusSnapshot, 'history' | 'sample'>): Promise<StatusSnapshot> {
    const totals = this.statusHistory.sinceStart();
    const [leaderboard, uniqueVisitors] = await Promise.all([
      this.leaderboard.top(BOARD, 10).catch(() => []),
      this.visitors.count(visitorsKey(new Date().toISOString().slice(0, 10))).catch(() => 0),
    ]);
    const hits = totals.cache.hit + totals.cache.near_hit;
    const reads = hits + totals.cache.miss + totals.cache.stale + totals.cache.error;
    return {
      cache: { hitRatio: reads === 0 ? 0 : hits / reads, hits, misses: totals.cache.miss, stale: totals.cache.stale },
      rateLimited: totals.decisions.denied + totals.decisions.failed_closed,
      lockContention: totals.lockContention,
      requests: this.requests.answered,
      stream: { lag: totals.streamLag, pending: totals.streamPending, processed: totals.streamAcked },
      uniqueVisitors,
      leaderboard,
      traffic: { running: this.traffic.running, lastBurst: this.traffic.lastBurst() ?? null },
      sampleIntervalMs: SAMPLE_INTERVAL_MS,
      historySamples: HISTORY_SAMPLES,
      ...points,
    };
  }
}
