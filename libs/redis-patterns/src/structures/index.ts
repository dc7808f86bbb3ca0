// `nestjs-redis-patterns/structures`: sessions, leaderboards, unique counters (HyperLogLog) and capped lists: their
// classes and types. Explicit named exports (`export type` for interfaces). The option sections are the root's too
// (forRoot's `sessions`, `leaderboard`, `uniqueCounter` and `cappedList`).
export { SessionStore } from './session-store';
export type { CreateSessionOptions, TouchSessionOptions } from './session-store';
export type { SessionData } from './session-codec';
export { Leaderboard } from './leaderboard';
export type { LeaderboardEntry, LeaderboardPeriod, LeaderboardScope, LeaderboardWriteOptions } from './leaderboard.types';
export type { DayInput } from './leaderboard-period';
export { UniqueCounter } from './unique-counter';
export { CappedList } from './capped-list';
export type { CappedPushOptions } from './capped-list';
export type { SessionsOptions } from './sessions.options';
export type { LeaderboardOptions } from './leaderboard.options';
export type { UniqueCounterOptions } from './unique-counter.options';
export type { CappedListOptions } from './capped-list.options';
