import { Injectable } from '@nestjs/common';
import { PubSubService, StreamConsumer, type StreamMessage } from 'nestjs-redis-patterns/messaging';
import { UniqueCounter } from 'nestjs-redis-patterns/structures';
import { NOTIFICATIONS_CHANNEL, type Notification } from './notifications.hub';

export const EVENTS_STREAM = 'events';
export const STATS_GROUP = 'visitor-stats';

export function visitorsKey(day: string): string {
  return `visitors:${day}`;
}

/**
 * Consumes the events stream in a consumer group (at-least-once: a crashed instance's entries are reclaimed by
 * another). The handler is idempotent: adding a visitor to a HyperLogLog twice counts it once, and counters are
 * keyed by entry id.
 */
@Injectable()
export class VisitorStatsConsumer {
  processed = 0;
  private readonly seen = new Set<string>();
  readonly byType = new Map<string, number>();

  constructor(
    private readonly visitors: UniqueCounter,
    private readonly pubsub: PubSubService,
  ) {}

  @StreamConsumer({
    stream: EVENTS_STREAM,
    group: STATS_GROUP,
    batchSize: 100,
    blockMs: 1000,
    concurrency: 4,
    claimIdleMs: 30_000,
    maxDeliveries: 5,
  })
  async handle(message: StreamMessage): Promise<void> {
    const { type = 'unknown', visitor, at } = message.fields;
    if (visitor) await this.visitors.add(visitorsKey((at ?? new Date().toISOString()).slice(0, 10)), visitor);
    if (this.seen.has(message.id)) return;
    this.seen.add(message.id);
    if (this.seen.size > 10_000) this.seen.clear();
    this.processed++;
    this.byType.set(type, (this.byType.get(type) ?? 0) + 1);
    if (type === 'purchase') {
      const notification: Notification = { type, message: `${visitor ?? 'someone'} made a purchase`, at: new Date().toISOString() };
      await this.pubsub.publish(NOTIFICATIONS_CHANNEL, notification);
    }
  }
}
