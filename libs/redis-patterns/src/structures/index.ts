// Public surface of this pattern: explicit named exports (`export type` for interfaces).
export { STRUCTURES_PROVIDERS } from './structures.providers';
export type { SessionsOptions } from './sessions-options';
export type { LeaderboardOptions } from './leaderboard-options';
export type { UniqueCounterOptions } from './unique-counter-options';
export type { CappedListOptions } from './capped-list-options';
