import { Inject, Injectable } from '@nestjs/common';
import { KeyBuilder } from '../core/keys/key-builder';
import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { LEADERBOARD_SETTINGS, type LeaderboardSettings } from './leaderboard.options';
import { dayOf, weekDays } from './leaderboard-period';
import { LEADERBOARD_STORE, type LeaderboardStore, type LeaderboardWriteReply } from './leaderboard.store';
import type { LeaderboardEntry, LeaderboardScope, LeaderboardWriteOptions } from './leaderboard.types';
import { RedisClock } from './redis-clock';
import { checkCount, checkName, checkTtlMs } from './structure-args';

/**
 * Leaderboards on sorted sets. Every key of one board name (all-time, daily, weekly) shares the hash tag
 * `{board}`, so the weekly union is one cluster-safe command. A weekly board is materialised (ZUNIONSTORE of the
 * seven daily boards, O(total members)) only when a daily write or removal marked it stale or after `weekTtlMs`;
 * the reads in between reuse it, and concurrent reads in one process share one rebuild. Writes are single scripts: ZINCRBY or ZADD, TTL
 * renewal and the optional size cap together (invariant 1). Scores are IEEE doubles; they must stay within
 * ±(2^53 − 1), and by default be integers (`leaderboard.integerScores`).
 *
 * Ranks are 1-based and ordinal: members with equal scores get consecutive ranks, ordered by member name,
 * reverse-lexicographically (Redis' ZREVRANGE order). Encode a tie-breaker in the score if you need another order.
 *
 * An outage rejects with `RedisUnavailableError` (503 with `Retry-After` over HTTP).
 *
 * @example
 * await leaderboard.incr('arena', 'alice', 10, { period: 'day' });
 * const podium = await leaderboard.top('arena', 3, { period: 'week' });
 */
@Injectable()
export class Leaderboard {
  private readonly clock: RedisClock;
  /** Weekly unions being made fresh by this process, by key, with the count of daily writes when each started. */
  private readonly weekRebuilds = new Map<string, { writes: number; done: Promise<void> }>();
  /** Daily writes and removals this process completed. */
  private dailyWrites = 0;

  /** Created by the module's dependency injection; not part of the public API. @internal */
  constructor(
    private readonly keys: KeyBuilder,
    @Inject(LEADERBOARD_SETTINGS) private readonly settings: LeaderboardSettings,
    @Inject(LEADERBOARD_STORE) private readonly store: LeaderboardStore,
  ) {
    this.clock = new RedisClock(store);
  }

  /** Adds `by` (default 1) to a member's score, creating it at `by`; returns the new score. */
  async incr(board: string, member: string, by = 1, options: LeaderboardWriteOptions = {}): Promise<number> {
    return this.write('incr', board, member, this.checkScore(by, 'by'), options);
  }

  /** Sets a member's score; returns it. */
  async set(board: string, member: string, score: number, options: LeaderboardWriteOptions = {}): Promise<number> {
    return this.write('set', board, member, this.checkScore(score, 'score'), options);
  }

  /** The best `n` members, highest score first. */
  async top(board: string, n: number, scope: LeaderboardScope = {}): Promise<LeaderboardEntry[]> {
    return this.page(board, 0, checkCount(n, 'n', 1, 10_000), scope);
  }

  /** `limit` members from the 0-based position `offset`, highest score first (ZREVRANGE … WITHSCORES, one call). */
  async page(board: string, offset: number, limit: number, scope: LeaderboardScope = {}): Promise<LeaderboardEntry[]> {
    checkCount(offset, 'offset', 0, Number.MAX_SAFE_INTEGER);
    checkCount(limit, 'limit', 1, 10_000);
    const key = await this.readKey(board, scope);
    return toEntries(await this.store.top(key, offset, limit), offset);
  }

  /** A member's 1-based rank, or `null` when it is not on the board. */
  async rank(board: string, member: string, scope: LeaderboardScope = {}): Promise<number | null> {
    const key = await this.readKey(board, scope);
    const rank = await this.store.rank(key, checkName(member, 'member'));
    return rank === null ? null : rank + 1;
  }

  /** A member's score, or `null` when it is not on the board. */
  async score(board: string, member: string, scope: LeaderboardScope = {}): Promise<number | null> {
    const key = await this.readKey(board, scope);
    const score = await this.store.score(key, checkName(member, 'member'));
    return score === null ? null : Number(score);
  }

  /** The member and up to `n` neighbours on each side; empty when the member is not on the board. */
  async around(board: string, member: string, n: number, scope: LeaderboardScope = {}): Promise<LeaderboardEntry[]> {
    checkCount(n, 'n', 0, 5_000);
    const key = await this.readKey(board, scope);
    const window = await this.store.around(key, checkName(member, 'member'), n);
    return window === null ? [] : toEntries(window.entries, window.start);
  }

  /** The number of members on the board. */
  async size(board: string, scope: LeaderboardScope = {}): Promise<number> {
    return this.store.size(await this.readKey(board, scope));
  }

  /** Removes members; returns how many were on the board. */
  async remove(
    board: string,
    members: string | string[],
    scope: Omit<LeaderboardScope, 'period'> & { period?: 'all' | 'day' } = {},
  ): Promise<number> {
    const list = (Array.isArray(members) ? members : [members]).map((m, i) => checkName(m, `members[${i}]`));
    if (list.length === 0) return 0;
    if ((scope.period as string) === 'week') {
      throw new InvalidArgumentError('scope.period', "a weekly board is computed from daily boards: remove with period 'day'");
    }
    const target = await this.locate(board, scope);
    try {
      return await this.store.remove(target.key, list, target.weekMark);
    } finally {
      if (target.weekMark) this.dailyWrites++;
    }
  }

  private async write(
    mode: 'incr' | 'set',
    board: string,
    member: string,
    value: number,
    options: LeaderboardWriteOptions,
  ): Promise<number> {
    if ((options.period as string) === 'week') {
      throw new InvalidArgumentError('options.period', "a weekly board is computed from daily boards: write with period 'day'");
    }
    checkName(member, 'member');
    const daily = options.period === 'day';
    const ttl = checkTtlMs(options.ttlMs, 'options.ttlMs', daily ? this.settings.dailyTtlMs : this.settings.defaultTtlMs);
    const target = await this.locate(board, options);
    let reply: LeaderboardWriteReply;
    try {
      reply = await this.store.write(target.key, mode, value, ttl, this.settings.maxLength, member, target.weekMark);
    } finally {
      if (target.weekMark) this.dailyWrites++;
    }
    if ('outOfRange' in reply) {
      throw new InvalidArgumentError(
        mode === 'incr' ? 'by' : 'score',
        `the score would be ${reply.outOfRange}, outside ±(2^53 - 1) where doubles stop being exact`,
      );
    }
    return Number(reply.score);
  }

  private checkScore(value: unknown, argument: string): number {
    const integer = this.settings.integerScores;
    if (
      typeof value !== 'number' ||
      !Number.isFinite(value) ||
      Math.abs(value) > Number.MAX_SAFE_INTEGER ||
      (integer && !Number.isInteger(value))
    ) {
      throw new InvalidArgumentError(
        argument,
        `expected ${integer ? 'an integer' : 'a finite number'} within ±(2^53 - 1)${integer ? ' (set leaderboard.integerScores: false for fractional scores)' : ''}`,
      );
    }
    return value;
  }

  /** The key a call reads; a weekly board is first made fresh (see {@link Leaderboard.freshWeek}). */
  private async readKey(board: string, scope: LeaderboardScope): Promise<string> {
    const target = await this.locate(board, scope);
    if (target.week) await this.freshWeek(target.key, target.week.mark, target.week.days);
    return target.key;
  }

  /**
   * Where a scope lives: the board's key and, for a daily board, the freshness marker of its week's union (which a
   * write or removal deletes); for a weekly board, its marker and the seven daily boards it sums. Every key of a
   * board name shares the hash tag `{board}`.
   */
  private async locate(board: string, scope: LeaderboardScope): Promise<BoardTarget> {
    const group = this.keys.slotGroup('lb', checkName(board, 'board'));
    const period = scope.period ?? 'all';
    if (period === 'all') return { key: group };
    if (period !== 'day' && period !== 'week') throw new InvalidArgumentError('period', "expected 'all', 'day' or 'week'");
    const day = scope.at === undefined ? dayOf(new Date(await this.clock.now()), 'at') : dayOf(scope.at, 'at');
    const days = weekDays(day);
    const weekKey = this.keys.member(group, `week:${days[0]}`);
    const mark = `${weekKey}:fresh`;
    if (period === 'day') return { key: this.keys.member(group, `day:${day}`), weekMark: mark };
    return { key: weekKey, week: { mark, days: days.map((d) => this.keys.member(group, `day:${d}`)) } };
  }

  /**
   * Rebuilds a weekly union only when a daily write or removal marked it stale, or its TTL (`weekTtlMs`) ran out;
   * concurrent reads of one week in this process share one round trip. A read joins a running rebuild only when no
   * daily write of this process completed since it started, so a process always reads its own writes.
   */
  private freshWeek(weekKey: string, mark: string, days: string[]): Promise<void> {
    const running = this.weekRebuilds.get(weekKey);
    if (running && running.writes === this.dailyWrites) return running.done;
    const done = this.store.week(weekKey, mark, days, this.settings.weekTtlMs).then(() => undefined);
    const entry = { writes: this.dailyWrites, done };
    this.weekRebuilds.set(weekKey, entry);
    const forget = () => {
      if (this.weekRebuilds.get(weekKey) === entry) this.weekRebuilds.delete(weekKey);
    };
    done.then(forget, forget);
    return done;
  }
}

/** The keys of one board and period (see `Leaderboard.locate`). */
interface BoardTarget {
  key: string;
  /** A daily board: the freshness marker of its week's union. */
  weekMark?: string;
  /** A weekly board: its freshness marker and the daily boards it sums. */
  week?: { mark: string; days: string[] };
}

function toEntries(flat: string[], offset: number): LeaderboardEntry[] {
  const entries: LeaderboardEntry[] = [];
  for (let i = 0; i < flat.length; i += 2) entries.push({ member: flat[i], score: Number(flat[i + 1]), rank: offset + i / 2 + 1 });
  return entries;
}
