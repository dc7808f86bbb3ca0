import type { INestApplication } from '@nestjs/common';
import type { Cluster, Redis } from 'ioredis';
import { CappedList } from 'nestjs-redis-patterns';
import { rawClient, uniquePrefix } from '../../support/redis-env';
import { startApp, STRUCTURE_TOPOLOGIES } from './structures-app';

describe.each(STRUCTURE_TOPOLOGIES)('CappedList on %s', (topology) => {
  const prefix = uniquePrefix(`list-${topology}`);
  let app: INestApplication;
  let feed: CappedList;
  let admin: Redis | Cluster;

  beforeAll(async () => {
    admin = rawClient(topology);
    app = await startApp(topology, prefix, { cappedList: { defaultMaxLength: 10, defaultTtlMs: 600_000 } });
    feed = app.get(CappedList);
  });

  afterAll(async () => {
    await app?.close();
    admin.disconnect();
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
    expect(await admin.llen(`${prefix}:list:busy`)).toBe(25);
    expect(await admin.pttl(`${prefix}:list:busy`)).toBeLessThanOrEqual(60_000);
  });

  it('pushes several items in one step, the last given newest', async () => {
    expect(await feed.pushMany('batch', ['a', 'b', 'c'], { maxLength: 2 })).toBe(2);
    expect(await feed.range('batch')).toEqual(['c', 'b']);
  });

  it('rejects bad arguments and writes nothing', async () => {
    await expect(feed.push('bad', 1, { maxLength: 0 })).rejects.toThrow(/options\.maxLength/);
    await expect(feed.push('bad', undefined)).rejects.toThrow(/items\[0\]/);
    await expect(feed.push('bad', 1, { ttlMs: 1.5 })).rejects.toThrow(/options\.ttlMs/);
    expect(await admin.exists(`${prefix}:list:bad`)).toBe(0);
  });
});
