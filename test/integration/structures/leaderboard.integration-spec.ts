import type { INestApplication } from '@nestjs/common';
import { InvalidArgumentError, RedisConnections } from 'nestjs-redis-patterns';
import { Leaderboard } from 'nestjs-redis-patterns/structures';
import { type BackendName, inspectKeys, type KeyInspector } from '../../support/backends';
import { rawClient, uniquePrefix } from '../../support/redis-env';
import { startApp, STRUCTURE_BACKENDS, STRUCTURE_TOPOLOGIES } from './structures-app';

const members = Array.from({ length: 20 }, (_, i) => `m${i}`);
/** 250 increments of 1, 2 or 3 spread over the 20 members, and their total. */
const increments = Array.from({ length: 250 }, (_, i) => ({ member: members[i % 20], by: 1 + (i % 3) }));
const incrementsTotal = increments.reduce((sum, { by }) => sum + by, 0);

/** Milliseconds since the epoch on the clock a backend's boards go by: the Redis server's, or this process's. */
async function boardClockMs(backend: BackendName, app: INestApplication): Promise<number> {
  if (backend === 'memory') return app.get(RedisConnections).memory!.now();
  const raw = rawClient(backend);
  try {
    const [seconds] = await raw.time();
    return Number(seconds) * 1000;
  } finally {
    raw.disconnect();
  }
}

describe.each(STRUCTURE_BACKENDS)('Leaderboard on %s', (backend) => {
  const prefix = uniquePrefix(`lb-${backend}`);
  let app: INestApplication;
  let board: Leaderboard;
  let admin: KeyInspector;

  beforeAll(async () => {
    // 1000 increments at once on one key: on a cluster they queue on one master, and on two loaded cores (the server
    // matrix runs several apps and clusters at once) the last replies can take longer than the default 500 ms
    // deadline. The spec is about exact counts, so it gives them the unique-counter spec's deadline.
    app = await startApp(backend, prefix, { leaderboard: { defaultTtlMs: 3_600_000 }, commandTimeoutMs: 5000 });
    admin = inspectKeys(backend, app);
    board = app.get(Leaderboard);
  });

  afterAll(async () => {
    admin?.close();
    await app?.close();
  });

  it('counts 1000 concurrent increments exactly', async () => {
    await Promise.all([0, 1, 2, 3].flatMap(() => increments.map(({ member, by }) => board.incr('race', member, by))));
    const all = await board.top('race', 20);
    expect(all.reduce((sum, e) => sum + e.score, 0)).toBe(4 * incrementsTotal);
    expect(all).toHaveLength(20);
  });

  it('reads top, page, rank, score and around, highest first, ranks 1-based with ordinal ties', async () => {
    const scores: Record<string, number> = { ann: 50, bob: 40, cat: 40, dan: 30, eve: 20, fay: 10 };
    for (const [member, score] of Object.entries(scores)) await board.set('ranks', member, score);
    expect(await board.top('ranks', 3)).toEqual([
      { member: 'ann', score: 50, rank: 1 },
      { member: 'cat', score: 40, rank: 2 }, // ties: reverse lexicographic member order, consecutive ranks
      { member: 'bob', score: 40, rank: 3 },
    ]);
    expect(await board.page('ranks', 3, 2)).toEqual([
      { member: 'dan', score: 30, rank: 4 },
      { member: 'eve', score: 20, rank: 5 },
    ]);
    expect(await board.rank('ranks', 'ann')).toBe(1);
    expect(await board.rank('ranks', 'fay')).toBe(6);
    expect(await board.rank('ranks', 'nobody')).toBeNull();
    expect(await board.score('ranks', 'dan')).toBe(30);
    expect((await board.around('ranks', 'dan', 1)).map((e) => [e.member, e.rank])).toEqual([
      ['bob', 3],
      ['dan', 4],
      ['eve', 5],
    ]);
    expect((await board.around('ranks', 'ann', 2)).map((e) => e.rank)).toEqual([1, 2, 3]);
    expect(await board.around('ranks', 'nobody', 2)).toEqual([]);
    expect(await board.remove('ranks', ['ann', 'nobody'])).toBe(1);
    expect(await board.rank('ranks', 'cat')).toBe(1);
    expect(await board.size('ranks')).toBe(5);
  });

  it('orders equal scores by member bytes, reversed, characters beyond U+FFFF included', async () => {
    const names = ['a', 'b', 'é', '\uE000', '\u{1F600}'];
    for (const name of names) await board.set('bytes', name, 7);
    // UTF-8 byte order is code point order: U+1F600 sorts after U+E000, unlike JavaScript's UTF-16 order.
    expect((await board.top('bytes', 5)).map((e) => e.member)).toEqual(['\u{1F600}', '\uE000', 'é', 'b', 'a']);
    expect(await board.rank('bytes', '\uE000')).toBe(2);
  });

  it('gives every board a TTL, renewed by writes', async () => {
    await board.incr('ttl-board', 'a', 1);
    const key = `${prefix}:lb:{ttl-board}`;
    expect(await admin.pttl(key)).toBeGreaterThan(3_500_000);
    await board.incr('ttl-board', 'a', 1, { ttlMs: 30_000 });
    expect(await admin.pttl(key)).toBeLessThanOrEqual(30_000);
    expect(await admin.pttl(key)).toBeGreaterThan(0);
  });

  it('refuses scores past 2^53 - 1 and fractional scores, writing nothing (LB-2)', async () => {
    const max = Number.MAX_SAFE_INTEGER;
    expect(await board.set('precision', 'top', max)).toBe(max);
    await expect(board.incr('precision', 'top', 1)).rejects.toThrow(InvalidArgumentError);
    await expect(board.incr('precision', 'top', 1)).rejects.toThrow(/"by".*9007199254740992/);
    expect(await board.score('precision', 'top')).toBe(max);
    await expect(board.incr('precision', 'top', max)).rejects.toThrow(/would be 18014398509481982,/);
    await board.set('precision', 'bottom', -max);
    await expect(board.incr('precision', 'bottom', -2)).rejects.toThrow(/would be -9007199254740992,/); // the nearest double
    await expect(board.set('precision', 'x', 2 ** 53)).rejects.toThrow(/"score"/);
    await expect(board.set('precision', 'x', 2 ** 53 + 1)).rejects.toThrow(/"score"/);
    await expect(board.incr('precision', 'x', 0.1)).rejects.toThrow(/integer/);
    await expect(board.incr('precision', 'x', Number.NaN)).rejects.toThrow(/"by"/);
    expect(await board.score('precision', 'x')).toBeNull();
  });

  it('accepts fractional scores only when integerScores is off', async () => {
    const own = await startApp(backend, prefix, { leaderboard: { integerScores: false } });
    try {
      const fractional = own.get(Leaderboard);
      for (let i = 0; i < 10; i++) await fractional.incr('fractions', 'm', 0.1);
      expect(await fractional.score('fractions', 'm')).toBeCloseTo(1, 12);
    } finally {
      await own.close();
    }
  });

  it('keeps daily boards under the board hash tag and sums a week of them', async () => {
    // 2026-01-05 is a Monday; the week runs to Sunday 2026-01-11.
    const week = ['2026-01-05', '2026-01-06', '2026-01-07', '2026-01-08', '2026-01-09', '2026-01-10', '2026-01-11'];
    await Promise.all(week.map((day, i) => board.incr('weekly', 'alice', i + 1, { period: 'day', at: day })));
    await board.incr('weekly', 'bob', 100, { period: 'day', at: '2026-01-12' }); // next week
    await board.incr('weekly', 'bob', 5, { period: 'day', at: new Date('2026-01-07T23:59:59Z') });
    expect(await board.top('weekly', 5, { period: 'week', at: '2026-01-09' })).toEqual([
      { member: 'alice', score: 28, rank: 1 },
      { member: 'bob', score: 5, rank: 2 },
    ]);
    expect(await board.score('weekly', 'alice', { period: 'day', at: '2026-01-11' })).toBe(7);
    expect(await board.rank('weekly', 'bob', { period: 'week', at: '2026-01-12' })).toBe(1);
    const dayKey = `${prefix}:lb:{weekly}:day:2026-01-05`;
    const weekKey = `${prefix}:lb:{weekly}:week:2026-01-05`;
    expect(await admin.pttl(dayKey)).toBeGreaterThan(7 * 86_400_000);
    expect(await admin.pttl(weekKey)).toBeGreaterThan(0);
    expect(await admin.pttl(weekKey)).toBeLessThanOrEqual(60_000);
    await expect(board.incr('weekly', 'x', 1, { period: 'week' as 'day' })).rejects.toThrow(/options\.period/);
    await expect(board.incr('weekly', 'x', 1, { period: 'day', at: '2026-02-30' })).rejects.toThrow(/"at"/);
  });

  it("writes today's daily board by the store's clock (the Redis server's) when no day is given", async () => {
    await board.incr('today', 'me', 3, { period: 'day' });
    const today = new Date(await boardClockMs(backend, app)).toISOString().slice(0, 10);
    expect(await board.score('today', 'me', { period: 'day', at: today })).toBe(3);
    expect(await board.score('today', 'me', { period: 'day' })).toBe(3);
  });

  it('caps a board at maxLength, keeping the best members', async () => {
    const own = await startApp(backend, prefix, { leaderboard: { maxLength: 5 } });
    try {
      const capped = own.get(Leaderboard);
      await Promise.all(Array.from({ length: 20 }, (_, i) => capped.set('capped', `p${i}`, i)));
      expect(await capped.size('capped')).toBe(5);
      expect((await capped.top('capped', 10)).map((e) => e.score)).toEqual([19, 18, 17, 16, 15]);
    } finally {
      await own.close();
    }
  });

  it('deletes a board with its last member', async () => {
    await board.set('emptied', 'only', 1);
    expect(await admin.pttl(`${prefix}:lb:{emptied}`)).toBeGreaterThan(0);
    expect(await board.remove('emptied', ['only', 'only'])).toBe(1);
    expect(await admin.pttl(`${prefix}:lb:{emptied}`)).toBe(-2);
    expect(await board.size('emptied')).toBe(0);
    expect(await board.top('emptied', 3)).toEqual([]);
  });

  it('escapes board and member names and validates arguments', async () => {
    await board.incr('a:b*c', 'x', 1);
    expect(await admin.pttl(`${prefix}:lb:{a%3Ab%2Ac}`)).toBeGreaterThan(0);
    await expect(board.top('ok', 0)).rejects.toThrow(/"n"/);
    await expect(board.page('ok', -1, 10)).rejects.toThrow(/"offset"/);
    await expect(board.incr('', 'x')).rejects.toThrow(/"board"/);
  });
});

describe.each(STRUCTURE_TOPOLOGIES)('Leaderboard across application instances on %s', (topology) => {
  it('counts concurrent increments from 4 app instances on one server exactly (LB-1)', async () => {
    const prefix = uniquePrefix(`lb-apps-${topology}`);
    // Started one after another: an app's startup runs long synchronous stretches, which on two loaded cores could
    // outlast another app's socket deadline while its startup check awaits a reply. The increments run concurrently.
    const apps: INestApplication[] = [];
    for (let i = 0; i < 4; i++) apps.push(await startApp(topology, prefix));
    try {
      await Promise.all(apps.flatMap((app) => increments.map(({ member, by }) => app.get(Leaderboard).incr('race', member, by))));
      const all = await apps[0].get(Leaderboard).top('race', 20);
      expect(all.reduce((sum, e) => sum + e.score, 0)).toBe(4 * incrementsTotal);
      expect(all).toHaveLength(20);
    } finally {
      await Promise.all(apps.map((app) => app.close()));
    }
  });
});

describe('Leaderboard in memory', () => {
  it('keeps boards per application: another module instance in the process sees none of them', async () => {
    const prefix = uniquePrefix('lb-memory-apps');
    const [first, second] = await Promise.all([startApp('memory', prefix), startApp('memory', prefix)]);
    try {
      expect(await first.get(Leaderboard).incr('own', 'alice', 5)).toBe(5);
      expect(await second.get(Leaderboard).score('own', 'alice')).toBeNull();
      expect(await second.get(Leaderboard).incr('own', 'alice', 1)).toBe(1);
      expect(await first.get(Leaderboard).score('own', 'alice')).toBe(5);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });
});
