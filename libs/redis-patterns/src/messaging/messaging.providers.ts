import type { Provider } from '@nestjs/common';
import { OnRedisMessageExplorer } from './on-redis-message.explorer';
import { PubSubService } from './pubsub.service';
import { StreamConsumerExplorer } from './stream-consumer.explorer';
import { StreamsService } from './streams.service';

/** The providers (services, advisors, guards) of this pattern; the module provides and exports them all. */
export const MESSAGING_PROVIDERS: Provider[] = [PubSubService, StreamsService, OnRedisMessageExplorer, StreamConsumerExplorer];
