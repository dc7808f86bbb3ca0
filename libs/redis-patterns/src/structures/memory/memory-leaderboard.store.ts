import type { MemoryKeyspace } from '../../core/memory/memory-keyspace';
import type { LeaderboardStore, LeaderboardWriteReply } from '../leaderboard.store';

/** A board in memory: member → score, what the sorted set holds. */
type Board = Map<string, number>;

/** The exact integer range of a double: the write script refuses scores outside ±(2^53 − 1). */
const SCORE_LIMIT = Number.MAX_SAFE_INTEGER;

/**
 * Leaderboards kept in the module's {@link MemoryKeyspace} (`connection: 'memory://'`), for unit tests. Same keys,
 * same order (highest score first, ties in reverse member order by bytes, as ZREVRANGE), same replies and rules as
 * `RedisLeaderboardStore` and its scripts: a write range-checks first and writes nothing when refused (the refusal
 * carries the would-be score printed as `%.17g`), renews the TTL and keeps the best `maxLength` members; the weekly
 * union is rebuilt only when its freshness marker is gone (a daily write or removal deletes it), replaces its
 * destination and gives it a TTL, or deletes it when empty; a board left empty is deleted.
 *
 * What differs from Redis: boards live in this process only (another application instance, or another
 * `RedisPatternsModule` in the same process, sees none of them); "today" is this process's clock
 * ({@link MemoryKeyspace.now}), not the server's; reads sort the board (O(n log n)) where a sorted set answers in
 * O(log n), which is fine for the boards of a test. Each call is atomic because it runs synchronously.
 */
export class MemoryLeaderboardStore implements LeaderboardStore {
  constructor(private readonly keyspace: MemoryKeyspace) {}

  async write(
    key: string,
    mode: 'incr' | 'set',
    value: number,
    ttlMs: number,
    maxLength: number,
    member: string,
    weekMark?: string,
  ): Promise<LeaderboardWriteReply> {
    const board = this.board(key) ?? new Map<string, number>();
    const current = board.get(member);
    // `+ 0` turns −0 into 0: Redis receives the score as text, where −0 is printed "0".
    const score = (mode === 'incr' && current !== undefined ? current + value : value) + 0;
    if (score > SCORE_LIMIT || score < -SCORE_LIMIT) return { outOfRange: formatG17(score) };
    board.set(member, score);
    this.keyspace.set(key, board, ttlMs);
    // One write adds at most one member: dropping the lowest until the cap holds is ZREMRANGEBYRANK 0 −maxLength−1.
    while (maxLength > 0 && board.size > maxLength) board.delete(lowest(board));
    if (weekMark !== undefined) this.keyspace.delete(weekMark);
    return { score: String(score) };
  }

  async top(key: string, offset: number, limit: number): Promise<string[]> {
    return flatten(ranked(this.board(key)).slice(offset, offset + limit));
  }

  async rank(key: string, member: string): Promise<number | null> {
    const board = this.board(key);
    const score = board?.get(member);
    if (!board || score === undefined) return null;
    let above = 0;
    for (const entry of board) if (compareRanked(entry, [member, score]) < 0) above++;
    return above;
  }

  async score(key: string, member: string): Promise<string | null> {
    const score = this.board(key)?.get(member);
    return score === undefined ? null : String(score);
  }

  async around(key: string, member: string, n: number): Promise<{ start: number; entries: string[] } | null> {
    const entries = ranked(this.board(key));
    const rank = entries.findIndex(([name]) => name === member);
    if (rank === -1) return null;
    const start = Math.max(0, rank - n);
    return { start, entries: flatten(entries.slice(start, rank + n + 1)) };
  }

  async size(key: string): Promise<number> {
    return this.board(key)?.size ?? 0;
  }

  async remove(key: string, members: readonly string[], weekMark?: string): Promise<number> {
    const board = this.board(key);
    if (!board) return 0;
    let removed = 0;
    for (const member of new Set(members)) if (board.delete(member)) removed++;
    // Redis deletes a sorted set with its last member.
    if (board.size === 0) this.keyspace.delete(key);
    if (removed > 0 && weekMark !== undefined) this.keyspace.delete(weekMark);
    return removed;
  }

  async week(dest: string, mark: string, sources: readonly string[], ttlMs: number): Promise<boolean> {
    const size = this.keyspace.get<string>(mark);
    if (size !== undefined && (size === '0' || this.board(dest) !== undefined)) return false;
    const sum: Board = new Map();
    for (const source of sources) {
      for (const [member, score] of this.board(source) ?? []) sum.set(member, (sum.get(member) ?? 0) + score);
    }
    // ZUNIONSTORE replaces the destination, and deletes it when the union is empty.
    if (sum.size > 0) this.keyspace.set(dest, sum, ttlMs);
    else this.keyspace.delete(dest);
    this.keyspace.set(mark, String(sum.size), ttlMs);
    return true;
  }

  async serverTimeMs(): Promise<number> {
    return Math.floor(this.keyspace.now());
  }

  private board(key: string): Board | undefined {
    return this.keyspace.get<Board>(key);
  }
}

/** The board's entries in ZREVRANGE order. */
function ranked(board: Board | undefined): Array<[string, number]> {
  return board ? [...board].sort(compareRanked) : [];
}

/** ZREVRANGE order: higher score first; equal scores in reverse member order. */
function compareRanked([memberA, scoreA]: [string, number], [memberB, scoreB]: [string, number]): number {
  if (scoreA !== scoreB) return scoreA > scoreB ? -1 : 1;
  return compareBytes(memberB, memberA);
}

/** The member ZREMRANGEBYRANK 0 0 would remove: the lowest score, then the lowest member. */
function lowest(board: Board): string {
  let low: [string, number] | undefined;
  for (const entry of board) if (!low || compareRanked(entry, low) > 0) low = entry;
  return low![0];
}

/**
 * Compares members as Redis does (memcmp of their UTF-8 bytes, that is code point order), which differs from
 * JavaScript's UTF-16 order only where a character above U+FFFF meets one from U+E000 to U+FFFF.
 */
function compareBytes(a: string, b: string): number {
  const shared = Math.min(a.length, b.length);
  for (let i = 0; i < shared; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xSurrogate = x >= 0xd800 && x <= 0xdfff;
    const ySurrogate = y >= 0xd800 && y <= 0xdfff;
    if (xSurrogate !== ySurrogate) return xSurrogate ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

function flatten(entries: Array<[string, number]>): string[] {
  return entries.flatMap(([member, score]) => [member, String(score)]);
}

/** A number as C's `%.17g` prints it (the write script's `string.format('%.17g', score)`). */
function formatG17(value: number): string {
  const [mantissa, exponentText] = value.toExponential(16).split('e');
  const exponent = Number(exponentText);
  const stripZeros = (digits: string) => (digits.includes('.') ? digits.replace(/\.?0+$/, '') : digits);
  if (exponent >= -4 && exponent < 17) return stripZeros(value.toFixed(16 - exponent));
  return `${stripZeros(mantissa)}e${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
}
