import type { Provider } from '@nestjs/common';
import { RESOLVED_OPTIONS } from '../redis-patterns.constants';
import type { ResolvedRedisPatternsOptions } from '../redis-patterns.options';
import { storeProvider } from '../core/connections/store-provider';
import { CappedList } from './capped-list';
import { CAPPED_LIST_SETTINGS, type CappedListSettings, resolveCappedListSettings } from './capped-list.options';
import { CAPPED_LIST_STORE, type CappedListStore, RedisCappedListStore } from './capped-list.store';
import { Leaderboard } from './leaderboard';
import { LEADERBOARD_SETTINGS, type LeaderboardSettings, resolveLeaderboardSettings } from './leaderboard.options';
import { LEADERBOARD_STORE, type LeaderboardStore, RedisLeaderboardStore } from './leaderboard.store';
import { SessionStore } from './session-store';
import { resolveSessionsSettings, SESSIONS_SETTINGS, type SessionsSettings } from './sessions.options';
import { RedisSessionsStore, SESSIONS_STORE, type SessionsStore } from './sessions.store';
import { UniqueCounter } from './unique-counter';
import { resolveUniqueCounterSettings, UNIQUE_COUNTER_SETTINGS, type UniqueCounterSettings } from './unique-counter.options';
import { RedisUniqueCounterStore, UNIQUE_COUNTER_STORE, type UniqueCounterStore } from './unique-counter.store';
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
  storeProvider<SessionsSettings, SessionsStore>(SESSIONS_STORE, SESSIONS_SETTINGS, {
    memory: (keyspace) => new MemorySessionsStore(keyspace),
    redis: (redis) => new RedisSessionsStore(redis),
  }),
  storeProvider<LeaderboardSettings, LeaderboardStore>(LEADERBOARD_STORE, LEADERBOARD_SETTINGS, {
    memory: (keyspace) => new MemoryLeaderboardStore(keyspace),
    redis: (redis) => new RedisLeaderboardStore(redis),
  }),
  storeProvider<UniqueCounterSettings, UniqueCounterStore>(UNIQUE_COUNTER_STORE, UNIQUE_COUNTER_SETTINGS, {
    memory: (keyspace) => new MemoryUniqueCounterStore(keyspace),
    redis: (redis) => new RedisUniqueCounterStore(redis),
  }),
  storeProvider<CappedListSettings, CappedListStore>(CAPPED_LIST_STORE, CAPPED_LIST_SETTINGS, {
    memory: (keyspace) => new MemoryCappedListStore(keyspace),
    redis: (redis) => new RedisCappedListStore(redis),
  }),
];

/** The providers (services, advisors, guards) of this pattern; the module provides and exports them all. */
export const STRUCTURES_PROVIDERS: Provider[] = [...SETTINGS, ...STORES, SessionStore, Leaderboard, UniqueCounter, CappedList];
