import type { DayInput } from './leaderboard-period';

/** One ranked member of a board. `rank` is 1-based: the highest score is rank 1. */
export interface LeaderboardEntry {
  /** The member, as written. */
  member: string;
  /** Its score on this board (for a weekly board, the sum of its daily scores). */
  score: number;
  /** Its 1-based rank; equal scores get consecutive ranks, in reverse order of member name. */
  rank: number;
}

/**
 * Which board of a name: `'all'` (default, the all-time board), `'day'` (a daily board) or `'week'` (read only:
 * the sum of the seven daily boards of an ISO week, Monday to Sunday, UTC).
 */
export type LeaderboardPeriod = 'all' | 'day' | 'week';

/** Selects the board a call reads or writes. */
export interface LeaderboardScope {
  /** Which board of the name: `'all'` (default), `'day'` or `'week'`. */
  period?: LeaderboardPeriod;
  /** The day (or a day of the week) of a `'day'` / `'week'` board; default: today, on the Redis server's clock (UTC). */
  at?: DayInput;
}

/** Options of the writes (`incr`, `set`). */
export interface LeaderboardWriteOptions extends LeaderboardScope {
  /** The board written: `'all'` (default) or `'day'`; a weekly board is computed from the daily ones, never written. */
  period?: 'all' | 'day';
  /** TTL in ms, renewed by this write; default `leaderboard.defaultTtlMs` (all-time) or `dailyTtlMs` (daily). */
  ttlMs?: number;
}
