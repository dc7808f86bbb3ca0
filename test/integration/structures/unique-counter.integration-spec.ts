import type { INestApplication } from '@nestjs/common';
import { Cluster, type Redis } from 'ioredis';
import { InvalidArgumentError, UniqueCounter } from 'nestjs-redis-patterns';
import { rawClient, scanKeys, uniquePrefix } from '../../support/redis-env';
import { startApp, STRUCTURE_TOPOLOGIES } from './structures-app';

const items = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `user-${from + i}`);
const near = (actual: number, expected: number) => expect(Math.abs(actual - expected) / expected).toBeLessThan(0.03);

describe.each(STRUCTURE_TOPOLOGIES)('UniqueCounter on %s', (topology) => {
  const prefix = uniquePrefix(`hll-${topology}`);
  let app: INestApplication;
  let counter: UniqueCounter;
  let admin: Redis | Cluster;

  beforeAll(async () => {
    admin = rawClient(topology);
    // 5000 concurrent adds queue behind each other: a deadline that fits a loaded 2-core CI machine, not 500 ms.
    app = await startApp(topology, prefix, { uniqueCounter: { defaultTtlMs: 900_000 }, commandTimeoutMs: 5000 });
    counter = app.get(UniqueCounter);
  });

  afterAll(async () => {
    await app?.close();
    admin.disconnect();
  });

  it('counts distinct items, ignoring duplicates, and renews the TTL on each add', async () => {
    expect(await counter.add('day1', 'a', 'b', 'a')).toBe(true);
    expect(await counter.add('day1', 'b')).toBe(false);
    expect(await counter.count('day1')).toBe(2);
    const pttl = await admin.pttl(`${prefix}:hll:{day1}`);
    expect(pttl).toBeGreaterThan(800_000);
    expect(pttl).toBeLessThanOrEqual(900_000);
    await counter.addMany('day1', ['c'], { ttlMs: 10_000 });
    expect(await admin.pttl(`${prefix}:hll:{day1}`)).toBeLessThanOrEqual(10_000);
  });

  it('counts the union of counters in different slots within HLL error', async () => {
    await Promise.all(items(0, 5000).map((item, i) => counter.add(`k${i % 2}`, item)));
    await counter.addMany('k2', items(4000, 8000));
    if (topology === 'cluster') {
      const slots = await Promise.all(['k0', 'k1', 'k2'].map((k) => admin.cluster('KEYSLOT', `${prefix}:hll:{${k}}`)));
      expect(new Set(slots).size).toBe(3);
    }
    near(await counter.count('k0', 'k1'), 5000);
    near(await counter.count('k0', 'k1', 'k2'), 8000);
    near(await counter.count('k0', 'missing'), 2500);
    expect(await counter.count('missing', 'also-missing')).toBe(0);
  });

  it('merges counters into a destination with a TTL, keeping what it had', async () => {
    await counter.addMany('m-a', items(0, 1000));
    await counter.addMany('m-b', items(500, 1500));
    await counter.addMany('m-dest', items(10_000, 10_100));
    near(await counter.mergeWith('m-dest', ['m-a', 'm-b'], { ttlMs: 120_000 }), 1600);
    near(await counter.count('m-dest'), 1600);
    const pttl = await admin.pttl(`${prefix}:hll:{m-dest}`);
    expect(pttl).toBeGreaterThan(0);
    expect(pttl).toBeLessThanOrEqual(120_000);
    near(await counter.merge('m-new', 'm-a'), 1000);
    expect(await admin.pttl(`${prefix}:hll:{m-new}`)).toBeGreaterThan(800_000);
  });

  it('leaves no scratch keys behind and no key without a TTL', async () => {
    await Promise.all(Array.from({ length: 20 }, () => counter.count('k0', 'k1', 'k2')));
    const keys = await scanKeys(admin, `${prefix}:*`);
    expect(keys.filter((k) => k.includes(':tmp:'))).toEqual([]);
    const ttls = await Promise.all(keys.map((k) => admin.pttl(k)));
    expect(ttls.filter((t) => t < 0)).toEqual([]);
  });

  it('rejects bad arguments naming them', async () => {
    await expect(counter.add('x')).rejects.toThrow(InvalidArgumentError);
    await expect(counter.count()).rejects.toThrow(/"keys"/);
    await expect(counter.merge('dest')).rejects.toThrow(/"sources"/);
    await expect(counter.addMany('x', ['a'], { ttlMs: -1 })).rejects.toThrow(/options\.ttlMs/);
    expect(admin instanceof Cluster).toBe(topology === 'cluster');
  });
});
