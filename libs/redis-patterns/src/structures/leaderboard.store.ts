import type { RedisExecutor } from '../core/scripts/redis-executor';
import { LEADERBOARD_AROUND } from './scripts/leaderboard-around.script';
import { LEADERBOARD_DAY_REMOVE } from './scripts/leaderboard-day-remove.script';
import { LEADERBOARD_WEEK } from './scripts/leaderboard-week.script';
import { LEADERBOARD_DAY_WRITE, LEADERBOARD_WRITE } from './scripts/leaderboard-write.script';

/**
 * The outcome of a score write: the new score as the store's text (Redis prints doubles exactly), or, when the
 * score would leave ±(2^53 − 1), the would-be score and nothing written.
 */
export type LeaderboardWriteReply = { readonly score: string } | { readonly outOfRange: string };

/**
 * Where leaderboards live: one sorted set per board and period. Ranges are highest score first, ties in reverse
 * member order; scores travel as text, as the store prints them. Every method is one round trip.
 */
export interface LeaderboardStore {
  /**
   * Adds `value` to the member's score (`incr`) or sets it (`set`), then renews the board's TTL and keeps its best
   * `maxLength` members (0: unbounded), all at once. `weekMark`: the freshness marker of the week of a daily board,
   * deleted by the same step.
   */
  write(
    key: string,
    mode: 'incr' | 'set',
    value: number,
    ttlMs: number,
    maxLength: number,
    member: string,
    weekMark?: string,
  ): Promise<LeaderboardWriteReply>;
  /** `limit` entries from the 0-based position `offset`: member, score, member, score, … */
  top(key: string, offset: number, limit: number): Promise<string[]>;
  /** The member's 0-based position, or null when it is not on the board. */
  rank(key: string, member: string): Promise<number | null>;
  /** The member's score, or null when it is not on the board. */
  score(key: string, member: string): Promise<string | null>;
  /**
   * The member and up to `n` neighbours on each side, read at once so the window matches the member's rank:
   * `start` is the 0-based position of the first entry. Null when the member is not on the board.
   */
  around(key: string, member: string, n: number): Promise<{ start: number; entries: string[] } | null>;
  /** The number of members. */
  size(key: string): Promise<number>;
  /** Removes members; resolves with how many were on the board. `weekMark` as in {@link write}, deleted when any was. */
  remove(key: string, members: readonly string[], weekMark?: string): Promise<number>;
  /**
   * Makes `dest` the sum of the `sources` boards (the seven days of a week) unless its marker `mark` says it still
   * is: rebuilds it (TTL `ttlMs` when not empty) and sets the marker (same TTL) in one step. Resolves true when it
   * rebuilt.
   */
  week(dest: string, mark: string, sources: readonly string[], ttlMs: number): Promise<boolean>;
  /** Milliseconds since the epoch on the store's clock. */
  serverTimeMs(): Promise<number>;
}

/** Injection token of the leaderboards' {@link LeaderboardStore}. */
export const LEADERBOARD_STORE = Symbol('RedisPatterns:LeaderboardStore');

/**
 * Leaderboards on Redis sorted sets. Writes are one script (range check, write, TTL and size cap in one atomic step:
 * a concurrent increment can neither push a score past the exact range nor leave the board without its TTL).
 */
export class RedisLeaderboardStore implements LeaderboardStore {
  constructor(private readonly redis: RedisExecutor) {}

  async write(
    key: string,
    mode: 'incr' | 'set',
    value: number,
    ttlMs: number,
    maxLength: number,
    member: string,
    weekMark?: string,
  ): Promise<LeaderboardWriteReply> {
    const args = [mode, String(value), ttlMs, maxLength, member];
    try {
      return {
        score: await (weekMark === undefined
          ? this.redis.run(LEADERBOARD_WRITE, [key], args)
          : this.redis.run(LEADERBOARD_DAY_WRITE, [key, weekMark], args)),
      };
    } catch (error) {
      // The script refuses an out-of-range score with an error reply `SCORE_RANGE <would-be score>`.
      const message = error instanceof Error ? error.message : '';
      if (message.startsWith('SCORE_RANGE')) return { outOfRange: message.split(' ')[1] };
      throw error;
    }
  }

  top(key: string, offset: number, limit: number): Promise<string[]> {
    return this.redis.call('zrevrange', key, offset, offset + limit - 1, 'WITHSCORES');
  }

  rank(key: string, member: string): Promise<number | null> {
    return this.redis.call('zrevrank', key, member);
  }

  score(key: string, member: string): Promise<string | null> {
    return this.redis.call('zscore', key, member);
  }

  async around(key: string, member: string, n: number): Promise<{ start: number; entries: string[] } | null> {
    const reply = await this.redis.run(LEADERBOARD_AROUND, [key], [member, n]);
    if (reply.length === 0) return null;
    const [start, ...entries] = reply;
    return { start: Number(start), entries: entries.map(String) };
  }

  size(key: string): Promise<number> {
    return this.redis.call('zcard', key);
  }

  remove(key: string, members: readonly string[], weekMark?: string): Promise<number> {
    if (weekMark === undefined) return this.redis.call('zrem', key, members);
    return this.redis.run(LEADERBOARD_DAY_REMOVE, [key, weekMark], members);
  }

  async week(dest: string, mark: string, sources: readonly string[], ttlMs: number): Promise<boolean> {
    // One script: the freshness check gates the union, and the weekly board never exists without its TTL.
    return (await this.redis.run(LEADERBOARD_WEEK, [dest, mark, ...sources], [ttlMs])) === 1;
  }

  async serverTimeMs(): Promise<number> {
    const [seconds, micros] = await this.redis.call<[string, string]>('time');
    return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  }
}
