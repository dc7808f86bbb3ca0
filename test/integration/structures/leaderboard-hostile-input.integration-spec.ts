import type { INestApplication } from '@nestjs/common';
import { Cluster, type Redis } from 'ioredis';
import { RedisConnections } from 'nestjs-redis-patterns';
import { Leaderboard } from 'nestjs-redis-patterns/structures';
import { type BackendName, inspectKeys, type KeyInspector } from '../../support/backends';
import { rawClient, uniquePrefix } from '../../support/redis-env';
import { startApp, STRUCTURE_BACKENDS } from './structures-app';

// 2026-01-05 is a Monday; its ISO week runs to Sunday 2026-01-11.
const WEEK = ['2026-01-05', '2026-01-06', '2026-01-07', '2026-01-08', '2026-01-09', '2026-01-10', '2026-01-11'];

/** How many ZUNIONSTORE the servers of a topology ran so far (commands run by scripts included), summed over masters. */
async function zunionstoreCalls(admin: Redis | Cluster): Promise<number> {
  await admin.ping(); // a cluster client knows its masters once connected
  const nodes = admin instanceof Cluster ? admin.nodes('master') : [admin];
  const stats = await Promise.all(nodes.map((node) => node.info('commandstats')));
  return stats.reduce((sum, text) => sum + Number(/cmdstat_zunionstore:calls=(\d+)/.exec(text)?.[1] ?? 0), 0);
}

describe.each(STRUCTURE_BACKENDS)('Leaderboard weekly reads under load on %s', (backend: BackendName) => {
  const prefix = uniquePrefix(`lb-hostile-${backend}`);
  let app: INestApplication;
  let board: Leaderboard;
  let keys: KeyInspector;
  let admin: Redis | Cluster | undefined;

  /** Evidence of how many unions ran: the server's command count, or (in memory) each rebuild's new board object. */
  const unionProbe = (boardName: string) => {
    const weekKey = `${prefix}:lb:{${boardName}}:week:${WEEK[0]}`;
    if (backend === 'memory') {
      const memory = app.get(RedisConnections).memory!;
      const seen = new Set<unknown>();
      // The first sample is the baseline (no union yet, or the one before the changes).
      return { sample: async () => void seen.add(memory.get(weekKey)), count: async () => seen.size - 1 };
    }
    let before: number | undefined;
    return {
      sample: async () => void (before ??= await zunionstoreCalls(admin!)),
      count: async () => (await zunionstoreCalls(admin!)) - before!,
    };
  };

  beforeAll(async () => {
    app = await startApp(backend, prefix);
    board = app.get(Leaderboard);
    keys = inspectKeys(backend, app);
    if (backend !== 'memory') admin = rawClient(backend);
  });

  afterAll(async () => {
    keys?.close();
    admin?.disconnect();
    await app?.close();
  });

  it('runs one union for 50 concurrent weekly reads, and reuses it for the reads after', async () => {
    await Promise.all(WEEK.map((day, i) => board.incr('crowd', `m${i}`, i + 1, { period: 'day', at: day })));
    const probe = unionProbe('crowd');
    await probe.sample();
    const reads = await Promise.all(Array.from({ length: 50 }, () => board.top('crowd', 3, { period: 'week', at: WEEK[2] })));
    await probe.sample();
    for (let i = 0; i < 5; i++) {
      expect(await board.score('crowd', 'm6', { period: 'week', at: WEEK[i] })).toBe(7);
      await probe.sample();
    }
    expect(reads.every((top) => top.map((e) => e.member).join() === 'm6,m5,m4')).toBe(true);
    expect(await probe.count()).toBe(1);
  }, 20_000);

  it('shows a daily write or removal in the next weekly read, rebuilding once per change', async () => {
    await board.incr('fresh', 'alice', 5, { period: 'day', at: WEEK[0] });
    expect(await board.score('fresh', 'alice', { period: 'week', at: WEEK[0] })).toBe(5);
    const probe = unionProbe('fresh');
    await probe.sample();
    await board.incr('fresh', 'alice', 2, { period: 'day', at: WEEK[3] });
    expect(await board.score('fresh', 'alice', { period: 'week', at: WEEK[6] })).toBe(7);
    await probe.sample();
    await board.set('fresh', 'bob', 100, { period: 'day', at: WEEK[6] });
    expect(await board.rank('fresh', 'bob', { period: 'week', at: WEEK[1] })).toBe(1);
    await probe.sample();
    expect(await board.remove('fresh', 'bob', { period: 'day', at: WEEK[6] })).toBe(1);
    expect(await board.rank('fresh', 'bob', { period: 'week', at: WEEK[1] })).toBeNull();
    await probe.sample();
    expect(await board.size('fresh', { period: 'week', at: WEEK[1] })).toBe(1);
    await probe.sample();
    // Three changes after the first read: three rebuilds, the last read reused the third.
    expect(await probe.count()).toBe(3);
  }, 20_000);

  it('leaves no key of a board without a TTL, union and its freshness marker included', async () => {
    await board.incr('ttls', 'a', 1, { period: 'day', at: WEEK[1] });
    await board.top('ttls', 1, { period: 'week', at: WEEK[1] });
    await board.incr('ttls', 'b', 1, { period: 'day', at: WEEK[2] });
    await board.top('ttls', 1, { period: 'week', at: WEEK[1] });
    await board.top('empty-week', 1, { period: 'week', at: WEEK[1] });
    const all = await keys.keys(`${prefix}:lb:`);
    expect(all.length).toBeGreaterThanOrEqual(3);
    expect(await keys.keysWithoutTtl(`${prefix}:lb:`)).toEqual([]);
  }, 20_000);
});
