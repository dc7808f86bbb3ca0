import { Injectable } from '@nestjs/common';
import { OnRedisMessage, PubSubService, StreamConsumer, StreamsService } from 'nestjs-redis-patterns/messaging';
import type { StreamMessage } from 'nestjs-redis-patterns/messaging';

@Injectable()
export class Orders {
  constructor(
    private readonly pubsub: PubSubService,
    private readonly streams: StreamsService,
  ) {}

  async place(orderId: string): Promise<void> {
    await this.streams.add('orders', { orderId }); // durable, capped with MAXLEN ~
    await this.pubsub.publish('dashboard', { orderId }); // best effort
  }
}

@Injectable()
export class Billing {
  @StreamConsumer({ stream: 'orders', group: 'billing', concurrency: 4, maxDeliveries: 5 })
  async bill(message: StreamMessage): Promise<void> {
    console.log(`billing entry ${message.id}`); // at least once: make it idempotent on message.id
  }

  @OnRedisMessage('dashboard')
  refresh(message: { orderId: string }): void {
    console.log(`order ${message.orderId} placed`);
  }
}
