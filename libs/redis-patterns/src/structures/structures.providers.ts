import type { Provider } from '@nestjs/common';
import { RESOLVED_OPTIONS } from '../redis-patterns.constants';
import type { ResolvedRedisPatternsOptions } from '../redis-patterns.options';
import { RedisConnections } from '../core/connections/redis-connections';
import { CappedList } from './capped-list';
import { CAPPED_LIST_SETTINGS, type CappedListSettings, resolveCappedListSettings } from './capped-list.options';
import { CAPPED_LIST_STORE, RedisCappedListStore } from './capped-list.store';
import { Leaderboard } from './leaderboard';
import { LEADERBOARD_SETTINGS, type LeaderboardSettings, resolveLeaderboardSettings } from './leaderboard.options';
import { LEADERBOARD_STORE, RedisLeaderboardStore } from './leaderboard.store';
import { SessionStore } from './session-store';
import { resolveSessionsSettings, SESSIONS_SETTINGS, type SessionsSettings } from './sessions.options';
import { RedisSessionsStore, SESSIONS_STORE } from './sessions.store';
import { UniqueCounter } from './unique-counter';
import { resolveUniqueCounterSettings, UNIQUE_COUNTER_SETTINGS, type UniqueCounterSettings } from './unique-counter.options';
import { RedisUniqueCounterStore, UNIQUE_COUNTER_STORE } from './unique-counter.store';
import { MemoryCappedListStore } from './memory/memory-capped-list.store';
import { MemoryLeaderboardStore } from './memory/memory-leaderboard.store';
import { MemorySessionsStore } from './memory/memory-sessions.store';
import { MemoryUniqueCounterStore } from './memory/memory-unique-counter.store';

/** Each structure's settings, resolved once from its section of the module options. */
const SETTINGS: Provider[] = [
  {
    provide: SESSIONS_SETTINGS,
    useFactory: (o: ResolvedRedisPatternsOptions) => resolveSessionsSettings(o.sessions),
    inject: [RESOLVED_OPTIONS],
  },
  {
    provide: LEADERBOARD_SETTINGS,
    useFactory: (o: ResolvedRedisPatternsOptions) => resolveLeaderboardSettings(o.leaderboard),
    inject: [RESOLVED_OPTIONS],
  },
  {
    provide: UNIQUE_COUNTER_SETTINGS,
    useFactory: (o: ResolvedRedisPatternsOptions) => resolveUniqueCounterSettings(o.uniqueCounter),
    inject: [RESOLVED_OPTIONS],
  },
  {
    provide: CAPPED_LIST_SETTINGS,
    useFactory: (o: ResolvedRedisPatternsOptions) => resolveCappedListSettings(o.cappedList),
    inject: [RESOLVED_OPTIONS],
  },
];

/** Each structure's store: on the connection its settings name, or in the module's keyspace in memory mode. */
const STORES: Provider[] = [
  {
    provide: SESSIONS_STORE,
    useFactory: (settings: SessionsSettings, connections: RedisConnections) =>
      connections.memory ? new MemorySessionsStore(connections.memory) : new RedisSessionsStore(connections.executor(settings.connection)),
    inject: [SESSIONS_SETTINGS, RedisConnections],
  },
  {
    provide: LEADERBOARD_STORE,
    useFactory: (settings: LeaderboardSettings, connections: RedisConnections) =>
      connections.memory
        ? new MemoryLeaderboardStore(connections.memory)
        : new RedisLeaderboardStore(connections.executor(settings.connection)),
    inject: [LEADERBOARD_SETTINGS, RedisConnections],
  },
  {
    provide: UNIQUE_COUNTER_STORE,
    useFactory: (settings: UniqueCounterSettings, connections: RedisConnections) =>
      connections.memory
        ? new MemoryUniqueCounterStore(connections.memory)
        : new RedisUniqueCounterStore(connections.executor(settings.connection)),
    inject: [UNIQUE_COUNTER_SETTINGS, RedisConnections],
  },
  {
    provide: CAPPED_LIST_STORE,
    useFactory: (settings: CappedListSettings, connections: RedisConnections) =>
      connections.memory
        ? new MemoryCappedListStore(connections.memory)
        : new RedisCappedListStore(connections.executor(settings.connection)),
    inject: [CAPPED_LIST_SETTINGS, RedisConnections],
  },
];

/** The providers (services, advisors, guards) of this pattern; the module provides and exports them all. */
export const STRUCTURES_PROVIDERS: Provider[] = [...SETTINGS, ...STORES, SessionStore, Leaderboard, UniqueCounter, CappedList];
