import type { Provider } from '@nestjs/common';
import { RESOLVED_OPTIONS } from '../redis-patterns.constants';
import type { ResolvedRedisPatternsOptions } from '../redis-patterns.options';
import { RedisConnections } from '../core/connections/redis-connections';
import { OnRedisMessageExplorer } from './on-redis-message.explorer';
import { PUBSUB_SETTINGS, type PubSubSettings, resolvePubSubSettings } from './pubsub.options';
import { PUBSUB_STORE, RedisPubSubStore } from './pubsub.store';
import { PubSubRuntime } from './pubsub.runtime';
import { PubSubService } from './pubsub.service';
import { StreamConsumerExplorer } from './stream-consumer.explorer';
import { resolveStreamsSettings, STREAMS_SETTINGS, type StreamsSettings } from './streams.options';
import { RedisStreamsStore, STREAMS_STORE } from './streams.store';
import { StreamsRuntime } from './streams.runtime';
import { StreamsService } from './streams.service';
import { MemoryPubSubStore } from './memory/memory-pubsub.store';
import { MemoryStreamsStore } from './memory/memory-streams.store';

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
  {
    provide: PUBSUB_STORE,
    useFactory: (settings: PubSubSettings, connections: RedisConnections) =>
      connections.memory ? new MemoryPubSubStore(connections.memory) : new RedisPubSubStore(connections, settings.connection),
    inject: [PUBSUB_SETTINGS, RedisConnections],
  },
  {
    provide: STREAMS_STORE,
    // In memory mode streams are refused: every call rejects with NoRedisInMemoryModeError (see MemoryStreamsStore).
    useFactory: (settings: StreamsSettings, connections: RedisConnections) =>
      connections.memory ? new MemoryStreamsStore() : new RedisStreamsStore(connections, settings.connection),
    inject: [STREAMS_SETTINGS, RedisConnections],
  },
  PubSubRuntime,
  PubSubService,
  StreamsRuntime,
  StreamsService,
  OnRedisMessageExplorer,
  StreamConsumerExplorer,
];
