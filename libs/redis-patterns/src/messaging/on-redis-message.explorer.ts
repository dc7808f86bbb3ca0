import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { discoverMethods } from '../core/advice/discover-methods';
import type { ResolvedRedisPatternsOptions } from '../redis-patterns.options';
import { RESOLVED_OPTIONS } from '../redis-patterns.constants';
import { ON_REDIS_MESSAGE } from './on-redis-message.decorator';
import { PubSubRuntime } from './pubsub.runtime';
import { withDeadline } from '../core/time/with-deadline';

/**
 * Subscribes every `@OnRedisMessage` method at bootstrap. It waits for the subscriptions (up to
 * `connectTimeoutMs`, and not at all while a connection is down: see `StartupWait`), so once `app.init()` has resolved every decorated method receives what is published; a
 * Redis that is down does not block startup: the subscriptions complete when the subscriber connects.
 */
@Injectable()
export class OnRedisMessageExplorer implements OnApplicationBootstrap {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly pubsub: PubSubRuntime,
    @Inject(RESOLVED_OPTIONS) private readonly options: ResolvedRedisPatternsOptions,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const found = discoverMethods(this.discovery, this.scanner, (method) => Reflect.hasOwnMetadata(ON_REDIS_MESSAGE, method));
    const subscriptions: Array<Promise<unknown>> = [];
    for (const { instance, method } of found) {
      for (const channel of Reflect.getOwnMetadata(ON_REDIS_MESSAGE, method) as string[]) {
        const subscribing = this.pubsub.subscribeDeclared(channel, (message, from) => method.call(instance, message, from));
        // A rejection after the deadline must not become an unhandled rejection.
        subscribing.catch(() => undefined);
        subscriptions.push(subscribing);
      }
    }
    if (subscriptions.length === 0) return;
    await withDeadline(Promise.all(subscriptions), this.options.startupWait.ms(), () => undefined);
  }
}
