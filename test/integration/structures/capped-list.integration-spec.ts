import type { INestApplication } from '@nestjs/common';
import { CappedList } from 'nestjs-redis-patterns/structures';
import { inspectKeys, type KeyInspector } from '../../support/backends';
import { uniquePrefix } from '../../support/redis-env';
import { startApp, STRUCTURE_BACKENDS } from './structures-app';

describe.each(STRUCTURE_BACKENDS)('CappedList on %s', (backend) => {
  const prefix = uniquePrefix(`list-${backend}`);
  let app: INestApplication;
  let feed: CappedList;
  let admin: KeyInspector;

  beforeAll(async () => {
    app = await startApp(backend, prefix, { cappedList: { defaultMaxLength: 10, defaultTtlMs: 600_000 } });
    admin = inspectKeys(backend, app);
    feed = app.get(CappedList);
  });

  afterAll(async () => {
    admin?.close();
    await app?.close();
  });

  it('keeps the newest items first, as JSON, with the configured defaults', async () => {
    for (let i = 0; i < 15; i++) await feed.push('user:42', { n: i });
    expect(await feed.range('user:42')).toEqual([14, 13, 12, 11, 10, 9, 8, 7, 6, 5].map((n) => ({ n })));
    expect(await feed.range('user:42', 0, 1)).toEqual([{ n: 14 }, { n: 13 }]);
    expect(await feed.length('user:42')).toBe(10);
    const pttl = await admin.pttl(`${prefix}:list:user%3A42`);
    expect(pttl).toBeGreaterThan(590_000);
    expect(pttl).toBeLessThanOrEqual(600_000);
  });

  it('never exceeds maxLength under 300 concurrent pushes, and every push returns a capped length', async () => {
    const lengths = await Promise.all(Array.from({ length: 300 }, (_, i) => feed.push('busy', `e${i}`, { maxLength: 25, ttlMs: 60_000 })));
    expect(Math.max(...lengths)).toBe(25);
    expect(await feed.length('busy')).toBe(25);
    const kept = await feed.range<string>('busy');
    expect(new Set(kept).size).toBe(25);
    expect(kept.every((item) => /^e\d+$/.test(item))).toBe(true);
    const pttl = await admin.pttl(`${prefix}:list:busy`);
    expect(pttl).toBeGreaterThan(0);
    expect(pttl).toBeLessThanOrEqual(60_000);
  });

  it('pushes several items in one step, the last given newest', async () => {
    expect(await feed.pushMany('batch', ['a', 'b', 'c'], { maxLength: 2 })).toBe(2);
    expect(await feed.range('batch')).toEqual(['c', 'b']);
  });

  it('reads ranges with LRANGE indexes: negative from the oldest end, out of range clamped', async () => {
    await feed.pushMany('idx', [1, 2, 3, 4, 5], { maxLength: 10 });
    expect(await feed.range('idx', -2, -1)).toEqual([2, 1]);
    expect(await feed.range('idx', 1, -2)).toEqual([4, 3, 2]);
    expect(await feed.range('idx', -100, 1)).toEqual([5, 4]);
    expect(await feed.range('idx', 3, 100)).toEqual([2, 1]);
    expect(await feed.range('idx', 4, 2)).toEqual([]);
    expect(await feed.range('idx', 5, 9)).toEqual([]);
    expect(await feed.range('nothing')).toEqual([]);
    expect(await feed.length('nothing')).toBe(0);
  });

  it('rejects bad arguments and writes nothing', async () => {
    await expect(feed.push('bad', 1, { maxLength: 0 })).rejects.toThrow(/options\.maxLength/);
    await expect(feed.push('bad', undefined)).rejects.toThrow(/items\[0\]/);
    await expect(feed.push('bad', 1, { ttlMs: 1.5 })).rejects.toThrow(/options\.ttlMs/);
    expect(await admin.pttl(`${prefix}:list:bad`)).toBe(-2);
  });
});
