import type { Provider } from '@nestjs/common';
import { RESOLVED_OPTIONS } from '../redis-patterns.constants';
import type { ResolvedRedisPatternsOptions } from '../redis-patterns.options';
import { CappedList } from './capped-list';
import { CAPPED_LIST_SETTINGS, resolveCappedListSettings } from './capped-list-options';
import { Leaderboard } from './leaderboard';
import { LEADERBOARD_SETTINGS, resolveLeaderboardSettings } from './leaderboard-options';
import { SessionStore } from './session-store';
import { resolveSessionsSettings, SESSIONS_SETTINGS } from './sessions-options';
import { UniqueCounter } from './unique-counter';
import { resolveUniqueCounterSettings, UNIQUE_COUNTER_SETTINGS } from './unique-counter-options';

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

/** The providers (services, advisors, guards) of this pattern; the module provides and exports them all. */
export const STRUCTURES_PROVIDERS: Provider[] = [...SETTINGS, SessionStore, Leaderboard, UniqueCounter, CappedList];
