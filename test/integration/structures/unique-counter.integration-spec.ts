import type { INestApplication } from '@nestjs/common';
import type { Cluster } from 'ioredis';
import { InvalidArgumentError } from 'nestjs-redis-patterns';
import { UniqueCounter } from 'nestjs-redis-patterns/structures';
import { inspectKeys, type KeyInspector } from '../../support/backends';
import { rawClient, uniquePrefix } from '../../support/redis-env';
import { startApp, STRUCTURE_BACKENDS } from './structures-app';

const items = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `user-${from + i}`);
const near = (actual: number, expected: number) => expect(Math.abs(actual - expected) / expected).toBeLessThan(0.03);

describe.each(STRUCTURE_BACKENDS)('UniqueCounter on %s', (backend) => {
  const prefix = uniquePrefix(`hll-${backend}`);
  let app: INestApplication;
  let counter: UniqueCounter;
  let admin: KeyInspector;

  beforeAll(async () => {
    // 5000 concurrent adds queue behind each other: a deadline that fits a loaded 2-core CI machine, not 500 ms.
    app = await startApp(backend, prefix, { uniqueCounter: { defaultTtlMs: 900_000 }, commandTimeoutMs: 5000 });
    admin = inspectKeys(backend, app);
    counter = app.get(UniqueCounter);
  });

  afterAll(async () => {
    admin?.close();
    await app?.close();
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

  it('counts the union of several counters within HLL error', async () => {
    await Promise.all(items(0, 5000).map((item, i) => counter.add(`k${i % 2}`, item)));
    await counter.addMany('k2', items(4000, 8000));
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

  it('a merge of missing counters still creates its destination, empty and with a TTL', async () => {
    expect(await counter.merge('m-empty', 'missing')).toBe(0);
    expect(await counter.count('m-empty')).toBe(0);
    expect(await admin.pttl(`${prefix}:hll:{m-empty}`)).toBeGreaterThan(800_000);
  });

  it('leaves no scratch keys behind and no key without a TTL', async () => {
    await counter.addMany('s0', items(0, 10));
    await counter.addMany('s1', items(5, 20));
    await Promise.all(Array.from({ length: 20 }, () => counter.count('s0', 's1')));
    await counter.merge('s-dest', 's0', 's1');
    const keys = await admin.keys(`${prefix}:`);
    expect(keys).toEqual(expect.arrayContaining([`${prefix}:hll:{s0}`, `${prefix}:hll:{s1}`, `${prefix}:hll:{s-dest}`]));
    expect(keys.filter((k) => k.includes(':tmp:'))).toEqual([]);
    expect(await admin.keysWithoutTtl(`${prefix}:`)).toEqual([]);
  });

  it('rejects bad arguments naming them', async () => {
    await expect(counter.add('x')).rejects.toThrow(InvalidArgumentError);
    await expect(counter.count()).rejects.toThrow(/"keys"/);
    await expect(counter.merge('dest')).rejects.toThrow(/"sources"/);
    await expect(counter.addMany('x', ['a'], { ttlMs: -1 })).rejects.toThrow(/options\.ttlMs/);
    expect(await admin.pttl(`${prefix}:hll:{x}`)).toBe(-2);
  });
});

describe('UniqueCounter on cluster, counters in different slots', () => {
  it('counts and merges counters of three slots without a cross-slot command', async () => {
    const prefix = uniquePrefix('hll-slots');
    const app = await startApp('cluster', prefix);
    const raw = rawClient('cluster') as Cluster;
    try {
      const counter = app.get(UniqueCounter);
      const slots = await Promise.all(['k0', 'k1', 'k2'].map((k) => raw.cluster('KEYSLOT', `${prefix}:hll:{${k}}`)));
      expect(new Set(slots).size).toBe(3);
      await counter.addMany('k0', items(0, 1000));
      await counter.addMany('k1', items(500, 1500));
      await counter.addMany('k2', items(1000, 2000));
      near(await counter.count('k0', 'k1', 'k2'), 2000);
      near(await counter.merge('k0', 'k1', 'k2'), 2000);
    } finally {
      raw.disconnect();
      await app.close();
    }
  });
});

describe('UniqueCounter in memory', () => {
  let app: INestApplication;
  let counter: UniqueCounter;

  beforeAll(async () => {
    app = await startApp('memory', uniquePrefix('hll-exact'));
    counter = app.get(UniqueCounter);
  });

  afterAll(() => app?.close());

  it('counts exactly, where HyperLogLog estimates', async () => {
    await Promise.all(items(0, 5000).map((item, i) => counter.add(`e${i % 2}`, item)));
    await counter.addMany('e2', items(4000, 8000));
    expect(await counter.count('e0')).toBe(2500);
    expect(await counter.count('e0', 'e1')).toBe(5000);
    expect(await counter.count('e0', 'e1', 'e2')).toBe(8000);
    expect(await counter.mergeWith('e-all', ['e0', 'e1', 'e2'])).toBe(8000);
    // Every new item is reported: nothing is lost to a register that did not change.
    expect(await counter.add('e-all', 'user-8000')).toBe(true);
    expect(await counter.add('e-all', 'user-0')).toBe(false);
  });
});
