import { Injectable, Module } from '@nestjs/common';
import { RedisPatternsModule } from 'nestjs-redis-patterns';
import { OnRedisMessage, PubSubService, StreamConsumer, StreamsService } from 'nestjs-redis-patterns/messaging';
import type { StreamMessage } from 'nestjs-redis-patterns/messaging';

/** Stands in for your payment provider: a charge is made once per idempotency key. */
@Injectable()
export class Payments {
  readonly charged = new Map<string, string>();

  async chargeOnce(idempotencyKey: string, orderId: string): Promise<void> {
    if (!this.charged.has(idempotencyKey)) this.charged.set(idempotencyKey, orderId);
  }
}

@Injectable()
export class Orders {
  constructor(
    private readonly pubsub: PubSubService,
    private readonly streams: StreamsService,
  ) {}

  async place(orderId: string): Promise<void> {
    // Durable: billing must see every order, even if it is down right now.
    await this.streams.add('orders', { orderId, placedAt: Date.now() });
    // Best effort: dashboards refresh if they happen to be listening.
    await this.pubsub.publish(`orders:${orderId}`, { status: 'placed' });
  }
}

@Injectable()
export class Billing {
  constructor(private readonly payments: Payments) {}

  // One consumer per instance in the group "billing": the group shares the work.
  @StreamConsumer({ stream: 'orders', group: 'billing', concurrency: 4, maxDeliveries: 5 })
  async bill(message: StreamMessage): Promise<void> {
    // Idempotent: message.id is unique in the stream; a redelivered entry must not bill twice.
    await this.payments.chargeOnce(message.id, String(message.fields.orderId));
  } // resolving acknowledges the entry; throwing retries it after claimIdleMs
}

@Injectable()
export class Dashboard {
  readonly seen: string[] = [];

  @OnRedisMessage('orders:*') // declared in code: a name with *, ? or [ is a pattern
  refresh(event: { status: string }, channel: string): void {
    this.seen.push(`${channel} ${event.status}`); // "orders:42 placed"
  }
}

@Module({
  imports: [
    RedisPatternsModule.forRoot({
      connection: process.env.REDIS_URL,
      streams: { claimIdleMs: 60_000 }, // defaults for every consumer
    }),
  ],
  providers: [Orders, Billing, Dashboard, Payments],
})
export class AppModule {}
