import { Controller, Get, Header, type MessageEvent, Sse } from '@nestjs/common';
import { Leaderboard, RedisConnections, StreamsService, UniqueCounter } from 'nestjs-redis-patterns';
import { from, interval, type Observable, startWith, switchMap } from 'rxjs';
import { VisitorStatsConsumer, EVENTS_STREAM, STATS_GROUP, visitorsKey } from '../events/visitor-stats.consumer';
import { BOARD } from '../scores/scores.controller';
import { STATUS_PAGE_HTML } from './status-page.html';
import { TrafficMetrics } from './traffic-metrics';

export interface StatusSnapshot {
  cache: { hitRatio: number; hits: number; misses: number; stale: number };
  rateLimited: number;
  lockContention: number;
  requests: number;
  stream: { lag: number; pending: number; processed: number };
  uniqueVisitors: number;
  leaderboard: Array<{ member: string; score: number; rank: number }>;
}

@Controller()
export class StatusController {
  constructor(
    private readonly metrics: TrafficMetrics,
    private readonly leaderboard: Leaderboard,
    private readonly visitors: UniqueCounter,
    private readonly streams: StreamsService,
    private readonly connections: RedisConnections,
    private readonly consumer: VisitorStatsConsumer,
  ) {}

  /** The live status page (static HTML; its script listens to /status/stream). */
  @Get()
  @Header('Content-Type', 'text/html; charset=utf-8')
  page(): string {
    return STATUS_PAGE_HTML;
  }

  /** A snapshot every second over server-sent events. */
  @Sse('status/stream')
  stream(): Observable<MessageEvent> {
    return interval(1000).pipe(
      startWith(0),
      switchMap(() => from(this.snapshot().then((data) => ({ data })))),
    );
  }

  @Get('status')
  snapshot(): Promise<StatusSnapshot> {
    return this.collect();
  }

  private async collect(): Promise<StatusSnapshot> {
    const m = this.metrics;
    const [leaderboard, uniqueVisitors, stream] = await Promise.all([
      this.leaderboard.top(BOARD, 10).catch(() => []),
      this.visitors.count(visitorsKey(new Date().toISOString().slice(0, 10))).catch(() => 0),
      this.streamLag(),
    ]);
    return {
      cache: { hitRatio: m.hitRatio(), hits: m.cacheHits, misses: m.cacheMisses, stale: m.cacheStale },
      rateLimited: m.rateLimited,
      lockContention: m.lockContention,
      requests: m.requests,
      stream: { ...stream, processed: this.consumer.processed },
      uniqueVisitors,
      leaderboard,
    };
  }

  /** Entries not yet delivered to the group (XINFO GROUPS `lag`) and delivered but unacknowledged (`pending`). */
  private async streamLag(): Promise<{ lag: number; pending: number }> {
    try {
      const groups = (await this.connections.get().xinfo('GROUPS', this.streams.keyOf(EVENTS_STREAM))) as unknown[][];
      for (const group of groups) {
        const fields = new Map<string, unknown>();
        for (let i = 0; i < group.length; i += 2) fields.set(String(group[i]), group[i + 1]);
        if (fields.get('name') === STATS_GROUP) return { lag: Number(fields.get('lag') ?? 0), pending: Number(fields.get('pending') ?? 0) };
      }
    } catch {
      // no stream yet
    }
    return { lag: 0, pending: 0 };
  }
}
