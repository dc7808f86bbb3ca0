import type { Provider } from '@nestjs/common';
import { RESOLVED_OPTIONS } from '../redis-patterns.constants';
import type { ResolvedRedisPatternsOptions } from '../redis-patterns.options';
import { OnRedisMessageExplorer } from './on-redis-message.explorer';
import { PUBSUB_SETTINGS, resolvePubSubSettings } from './pubsub-options';
import { PubSubService } from './pubsub.service';
import { StreamConsumerExplorer } from './stream-consumer.explorer';
import { resolveStreamsSettings, STREAMS_SETTINGS } from './streams-options';
import { StreamsService } from './streams.service';

/** The providers (services, advisors, guards) of this pattern; the module provides and exports them all. */
export const MESSAGING_PROVIDERS: Provider[] = [
  {
    provide: PUBSUB_SETTINGS,
    useFactory: (o: ResolvedRedisPatternsOptions) => resolvePubSubSettings(o.pubsub),
    inject: [RESOLVED_OPTIONS],
  },
  {
    provide: STREAMS_SETTINGS,
    useFactory: (o: ResolvedRedisPatternsOptions) => resolveStreamsSettings(o.streams),
    inject: [RESOLVED_OPTIONS],
  },
  PubSubService,
  StreamsService,
  OnRedisMessageExplorer,
  StreamConsumerExplorer,
];
