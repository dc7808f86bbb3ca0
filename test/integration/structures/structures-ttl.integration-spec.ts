import { CappedList, Leaderboard, SessionStore, UniqueCounter } from 'nestjs-redis-patterns/structures';
import { inspectKeys } from '../../support/backends';
import { uniquePrefix } from '../../support/redis-env';
import { startApp, STRUCTURE_BACKENDS } from './structures-app';

describe.each(STRUCTURE_BACKENDS)('invariant 1 for the data structures on %s', (backend) => {
  it('leaves no key without a TTL after a mixed concurrent workload', async () => {
    const prefix = uniquePrefix(`ttl-${backend}`);
    const app = await startApp(backend, prefix);
    const admin = inspectKeys(backend, app);
    try {
      const sessions = app.get(SessionStore);
      const board = app.get(Leaderboard);
      const counter = app.get(UniqueCounter);
      const feed = app.get(CappedList);
      const ids = await Promise.all(Array.from({ length: 20 }, (_, i) => sessions.create({ i })));
      await Promise.all([
        ...ids.map((id, i) => sessions.update(id, { touched: i })),
        ...ids.map((id) => sessions.touch(id)),
        ...ids.slice(0, 5).map((id) => sessions.destroy(id)),
        ...Array.from({ length: 50 }, (_, i) => board.incr(`b${i % 5}`, `m${i}`, i)),
        ...Array.from({ length: 20 }, (_, i) => board.incr('daily', `m${i}`, 1, { period: 'day', at: `2026-03-0${1 + (i % 7)}` })),
        board.top('daily', 3, { period: 'week', at: '2026-03-04' }),
        ...Array.from({ length: 30 }, (_, i) => counter.add(`c${i % 3}`, `v${i}`)),
        counter.merge('all', 'c0', 'c1', 'c2'),
        counter.count('c0', 'c1'),
        ...Array.from({ length: 30 }, (_, i) => feed.push(`f${i % 3}`, { i }, { maxLength: 5 })),
      ]);
      const keys = await admin.keys(`${prefix}:`);
      expect(keys.length).toBeGreaterThanOrEqual(33); // 15 sessions, 5 + 7 boards, 4 counters, 3 feeds (+ the week union)
      expect(await admin.keysWithoutTtl(`${prefix}:`)).toEqual([]);
    } finally {
      admin.close();
      await app.close();
    }
  });
});
