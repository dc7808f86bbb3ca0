import { optionsSection } from '../core/options/options-section';

/** Options of the `leaderboard` section of RedisPatternsModuleOptions. */
export interface LeaderboardOptions {
  /** Name of the connection this pattern uses (default: the default connection). */
  connection?: string;
  /** TTL in ms of an all-time board, renewed by every write, when the call gives none (default 86 400 000). */
  defaultTtlMs?: number;
  /** TTL in ms of a daily board, renewed by every write (default 8 days, so a week can be unioned). */
  dailyTtlMs?: number;
  /**
   * TTL in ms of a materialised weekly union and of its freshness marker (default 60 000). A weekly read rebuilds
   * the union (ZUNIONSTORE over the seven daily boards) only when a daily write or removal marked it stale or this
   * TTL ran out; the reads in between reuse it. The TTL bounds staleness only for daily boards changed behind the
   * library's back (another client writing them directly).
   */
  weekTtlMs?: number;
  /**
   * Keep only the best `maxLength` members of a board after each write (default: unbounded). Bounds the memory of a
   * board and the cost of a weekly rebuild; on daily boards it also drops members who might have ranked on the week.
   */
  maxLength?: number;
  /**
   * Reject scores and increments that are not integers (default true). Sorted-set scores are IEEE doubles:
   * `0.1` added ten times is not `1`, so fractional scores are an explicit opt-in.
   */
  integerScores?: boolean;
}

/** The `leaderboard` section with its defaults applied, resolved once at startup (frozen). */
export interface LeaderboardSettings {
  readonly connection?: string;
  readonly defaultTtlMs: number;
  readonly dailyTtlMs: number;
  readonly weekTtlMs: number;
  /** 0: unbounded. */
  readonly maxLength: number;
  readonly integerScores: boolean;
}

/** Injection token of the resolved {@link LeaderboardSettings}. */
export const LEADERBOARD_SETTINGS = Symbol('LeaderboardSettings');

const LEADERBOARD_SECTION = optionsSection<LeaderboardSettings>({
  defaultTtlMs: { number: { min: 1, integer: true, unit: 'ms' }, default: 86_400_000 },
  dailyTtlMs: { number: { min: 1, integer: true, unit: 'ms' }, default: 8 * 86_400_000 },
  weekTtlMs: { number: { min: 1, integer: true, unit: 'ms' }, default: 60_000 },
  // Absent means unbounded (0 in the settings); a given bound is at least 1.
  maxLength: { number: { min: 1, integer: true }, default: 0 },
  integerScores: { boolean: true, default: true },
});

/** Applies the defaults to a validated `leaderboard` section. */
export const resolveLeaderboardSettings: (section?: LeaderboardOptions) => LeaderboardSettings = LEADERBOARD_SECTION.resolve;

/** Validates the `leaderboard` section at startup; every error names the offending option. */
export const validateLeaderboardOptions = LEADERBOARD_SECTION.validate;
