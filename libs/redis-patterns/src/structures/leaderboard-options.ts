import {
  checkBoolean,
  checkConnectionName,
  checkKnownKeys,
  checkObject,
  checkOptionalNumber,
  type SectionValidator,
} from '../core/options/option-checks';

/** Options of the `leaderboard` section of RedisPatternsModuleOptions. */
export interface LeaderboardOptions {
  /** Name of the connection this pattern uses (default: the default connection). */
  connection?: string;
  /** TTL in seconds of an all-time board, renewed by every write, when the call gives none (default 86400). */
  defaultTtl?: number;
  /** TTL in seconds of a daily board, renewed by every write (default 691200, 8 days, so a week can be unioned). */
  dailyTtl?: number;
  /** TTL in seconds of a materialised weekly union (default 60); each weekly read recomputes it. */
  weekTtl?: number;
  /** Keep only the best `maxSize` members of a board after each write (default: unbounded). */
  maxSize?: number;
  /**
   * Reject scores and increments that are not integers (default true). Sorted-set scores are IEEE doubles:
   * `0.1` added ten times is not `1`, so fractional scores are an explicit opt-in.
   */
  integerScores?: boolean;
}

/** Defaults of the `leaderboard` section. */
export const LEADERBOARD_DEFAULTS = { defaultTtl: 86_400, dailyTtl: 8 * 86_400, weekTtl: 60, integerScores: true } as const;

const KNOWN_KEYS = ['connection', 'defaultTtl', 'dailyTtl', 'weekTtl', 'maxSize', 'integerScores'] as const;

/** Validates the `leaderboard` section at startup; every error names the offending option. */
export const validateLeaderboardOptions: SectionValidator = (value, path, context) => {
  const section = checkObject(value, path);
  checkKnownKeys(section, path, KNOWN_KEYS);
  checkConnectionName(section.connection, `${path}.connection`, context);
  for (const ttl of ['defaultTtl', 'dailyTtl', 'weekTtl'] as const) {
    checkOptionalNumber(section[ttl], `${path}.${ttl}`, { min: 1, integer: true, unit: 'seconds' });
  }
  checkOptionalNumber(section.maxSize, `${path}.maxSize`, { min: 1, integer: true });
  checkBoolean(section.integerScores, `${path}.integerScores`);
};
