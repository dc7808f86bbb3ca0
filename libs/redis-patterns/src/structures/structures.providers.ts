import type { Provider } from '@nestjs/common';
import { CappedList } from './capped-list';
import { Leaderboard } from './leaderboard';
import { SessionStore } from './session-store';
import { UniqueCounter } from './unique-counter';

/** The providers (services, advisors, guards) of this pattern; the module provides and exports them all. */
export const STRUCTURES_PROVIDERS: Provider[] = [SessionStore, Leaderboard, UniqueCounter, CappedList];
