import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { discoverMethods } from '../core/advice/discover-methods';
import { ON_REDIS_MESSAGE } from './on-redis-message.decorator';
import { PubSubService } from './pubsub.service';

/**
 * Subscribes every `@OnRedisMessage` method at bootstrap. It awaits each subscription, so once `app.init()` (or
 * `listen()`) has resolved, every decorated method receives what is published. Subscriptions end with the
 * subscriber connection at shutdown.
 */
@Injectable()
export class OnRedisMessageExplorer implements OnApplicationBootstrap {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly pubsub: PubSubService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const found = discoverMethods(this.discovery, this.scanner, (method) => Reflect.hasOwnMetadata(ON_REDIS_MESSAGE, method));
    const subscriptions: Array<Promise<unknown>> = [];
    for (const { instance, method } of found) {
      for (const channel of Reflect.getOwnMetadata(ON_REDIS_MESSAGE, method) as string[]) {
        subscriptions.push(this.pubsub.subscribe(channel, (message, from) => method.call(instance, message, from)));
      }
    }
    await Promise.all(subscriptions);
  }
}
