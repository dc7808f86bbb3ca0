import { IN_FLIGHT_WINDOW } from '../../../libs/redis-patterns/src/core/scripts/coalescing-queue';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { type Cluster, Redis } from 'ioredis';
import {
  CacheSerializationError,
  CacheService,
  CacheValueTooLargeError,
  InvalidArgumentError,
  RedisConnections,
  RedisPatternsModule,
} from 'nestjs-redis-patterns';
import { type BackendName, connectionOf, inspectKeys, type KeyInspector } from '../../support/backends';
import { rawClient, type TopologyName, uniquePrefix, waitFor } from '../../support/redis-env';
// The cache's store, an internal, by relative path: the spec drives an interleaving step by step.
import { CacheRuntime } from '../../../libs/redis-patterns/src/cache/cache.runtime';

/** An application with the cache on `backend`; `cache` options added to the spec's defaults. */
async function startCache(backend: BackendName, prefix: string, cache: Record<string, unknown> = {}): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({
    imports: [
      RedisPatternsModule.forRoot({
        connection: connectionOf(backend),
        keyPrefix: prefix,
        cache: { defaultTtl: 30, maxValueBytes: 64 * 1024, lockTtlMs: 1000, lockWaitMs: 1000, ...cache },
      }),
    ],
  }).compile();
  const app = moduleRef.createNestApplication();
  await app.init();
  return app;
}

describe.each<BackendName>(['standalone', 'cluster', 'memory'])('CacheService on %s', (backend) => {
  let app: INestApplication;
  let cache: CacheService;
  let inspect: KeyInspector;
  const prefix = uniquePrefix(`cache-${backend}`);
  const exists = async (key: string) => (await inspect.pttl(`${prefix}:${key}`)) !== -2;

  /** Writes a raw entry as another writer would: a Redis client, or straight into the module's keyspace. */
  async function plant(key: string, raw: string, px: number): Promise<void> {
    if (backend === 'memory') {
      app.get(RedisConnections).memory!.set(`${prefix}:${key}`, raw, px);
      return;
    }
    const client = rawClient(backend);
    try {
      await client.set(`${prefix}:${key}`, raw, 'PX', px);
    } finally {
      client.disconnect();
    }
  }

  beforeAll(async () => {
    app = await startCache(backend, prefix);
    cache = app.get(CacheService);
    inspect = inspectKeys(backend, app);
  });

  afterAll(async () => {
    await app?.close();
    inspect?.close();
  });

  it('sets and gets values with a TTL no longer than asked, and deletes them', async () => {
    const written = Date.now();
    expect(await cache.set('user42', { name: 'Ada' }, { ttl: 20 })).toBe(true);
    expect(await cache.get('user42')).toEqual({ name: 'Ada' });
    const pttl = await inspect.pttl(`${prefix}:cache:{user42}`);
    // The default jitter cuts at most 10 % (2 s); the rest is what the clock has used of the TTL since the write.
    expect(pttl).toBeGreaterThan(18_000 - (Date.now() - written) - 5);
    expect(pttl).toBeLessThanOrEqual(20_000);
    expect(await cache.del('user42', 'absent')).toBe(1);
    expect(await cache.get('user42')).toBeUndefined();
  });

  it('answers a read issued before a write in the same turn with the old value', async () => {
    await cache.set('order', 'old');
    const read = cache.get('order');
    const written = cache.set('order', 'new');
    expect([await read, await written]).toEqual(['old', true]);
    expect(await cache.get('order')).toBe('new');
  });

  it('caches falsy values but not undefined', async () => {
    const values: Record<string, unknown> = { zero: 0, empty: '', no: false, nothing: null };
    for (const [key, value] of Object.entries(values)) await cache.set(key, value);
    for (const [key, value] of Object.entries(values)) expect(await cache.get(key)).toBe(value);
    let calls = 0;
    for (let i = 0; i < 3; i++) expect(await cache.wrap('falsy-wrap', async () => (calls++, 0))).toBe(0);
    expect(calls).toBe(1);
    for (let i = 0; i < 3; i++) expect(await cache.wrap('undef-wrap', async () => (calls++, undefined))).toBeUndefined();
    expect(calls).toBe(4);
    await expect(cache.set('u', undefined)).rejects.toThrow(InvalidArgumentError);
  });

  it('round-trips Date, BigInt, Buffer, Map, Set; refuses the rest and oversized values without writing', async () => {
    const value = { at: new Date(1_700_000_000_000), n: 2n ** 70n, b: Buffer.from('hi'), m: new Map([[1, 'a']]), s: new Set(['x']) };
    await cache.set('typed', value);
    expect(await cache.get('typed')).toEqual(value);
    await expect(cache.set('fn', { f: () => 1 })).rejects.toThrow(CacheSerializationError);
    await expect(cache.set('big', 'x'.repeat(70 * 1024))).rejects.toThrow(CacheValueTooLargeError);
    expect(await exists('cache:{fn}')).toBe(false);
    expect(await exists('cache:{big}')).toBe(false);
    // A loader's oversized result is returned, not stored.
    expect((await cache.wrap('big-wrap', async () => 'y'.repeat(70 * 1024))).length).toBe(70 * 1024);
    expect(await exists('cache:{big-wrap}')).toBe(false);
  });

  it('reads several keys in one call, in order, misses as undefined', async () => {
    await Promise.all(['m1', 'm2', 'm3'].map((key, i) => cache.set(key, i)));
    expect(await cache.getMany(['m1', 'nope', 'm3', 'm2'])).toEqual([0, undefined, 2, 1]);
  });

  it('never pollutes Object.prototype from hostile cached data (get, getMany, wrap)', async () => {
    const hostile = '1::0:0:{"__proto__":{"polluted":1},"constructor":{"prototype":{"x":1}},"a":{"\\u005f_proto__":{"polluted":2}}}';
    await plant('cache:{evil}', hostile, 10_000);
    const values = [await cache.get('evil'), ...(await cache.getMany(['evil'])), await cache.wrap('evil', async () => 'loaded')];
    for (const value of values) {
      Object.assign({}, value);
      mergeDeep({}, value);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).x).toBeUndefined();
    expect(values[0]).toEqual({ a: {} });
  });

  it('runs the loader once for 50 concurrent wraps of a cold key', async () => {
    let calls = 0;
    const loader = async () => {
      calls++;
      await new Promise((resolve) => setTimeout(resolve, 100));
      return { v: 1 };
    };
    const results = await Promise.all(Array.from({ length: 50 }, () => cache.wrap('cold', loader, { ttl: 10 })));
    expect(calls).toBe(1);
    expect(results.every((r) => r.v === 1)).toBe(true);
    expect(await cache.get('cold')).toEqual({ v: 1 });
  });

  it('invalidates tags across slots: every tagged key goes, others stay, the count is exact', async () => {
    const keys = Array.from({ length: 60 }, (_, i) => `item${i}`);
    await Promise.all(keys.map((key, i) => cache.set(key, i, { tags: i % 2 === 0 ? ['even', 'all'] : ['all'] })));
    await cache.set('untagged', 'stays');
    if (backend === 'cluster') {
      const admin = rawClient(backend) as Cluster;
      try {
        const slots = new Set(
          await Promise.all(keys.map((key) => admin.cluster('KEYSLOT', `${prefix}:cache:{${key}}`) as Promise<number>)),
        );
        expect(slots.size).toBeGreaterThan(30);
      } finally {
        admin.disconnect();
      }
    }
    expect(await cache.invalidateTags('even')).toBe(30);
    const values = await cache.getMany(keys);
    expect(values.filter((v) => v !== undefined)).toHaveLength(30);
    expect(values.every((v, i) => (i % 2 === 0 ? v === undefined : v === i))).toBe(true);
    expect(await cache.invalidateTags('all', 'even')).toBe(30);
    expect((await cache.getMany(keys)).every((v) => v === undefined)).toBe(true);
    expect(await cache.get('untagged')).toBe('stays');
    expect(await cache.invalidateTags('never-used')).toBe(0);
  });

  it('keeps tag indexes alive at least as long as their members', async () => {
    await cache.set('short', 1, { ttl: 5, tags: ['ttl-tag'] });
    await cache.set('long', 1, { ttl: 25, tags: ['ttl-tag'] });
    const setTtl = await inspect.pttl(`${prefix}:cache-tag:{ttl-tag}:idx`);
    const memberTtl = await inspect.pttl(`${prefix}:cache:{long}`);
    expect(setTtl).toBeGreaterThanOrEqual(memberTtl);
    expect(setTtl).toBeLessThanOrEqual(26_000);
  });

  it('never leaves a value readable after invalidateTags resolves, with writers racing it', async () => {
    for (let round = 0; round < 5; round++) {
      let version = 0;
      let writing = true;
      const doneSet = new Array<number>(8).fill(0);
      const doneWrap = new Array<number>(8).fill(0);
      const writers = Array.from({ length: 8 }, async (_, w) => {
        while (writing) {
          const v = ++version;
          await cache.set(`race${w}`, v, { tags: ['race'] });
          doneSet[w] = v;
          const u = ++version;
          await cache.wrap(`racew${w}`, async () => u, { tags: ['race'], ttl: 30 });
          doneWrap[w] = u;
          // Yield to I/O and timers each turn, so a burst of fail-open (no I/O) turns cannot starve the test.
          await new Promise((resolve) => setImmediate(resolve));
        }
      });
      await new Promise((resolve) => setTimeout(resolve, 30));
      // Every write that completed before the invalidation began must be unreadable once it resolves; writes still
      // in flight may survive only if they registered after it (the tombstones refuse the others).
      const setAtStart = [...doneSet];
      const wrapAtStart = [...doneWrap];
      await cache.invalidateTags('race');
      const sets = await cache.getMany(Array.from({ length: 8 }, (_, w) => `race${w}`));
      const wraps = await cache.getMany(Array.from({ length: 8 }, (_, w) => `racew${w}`));
      writing = false;
      await Promise.all(writers);
      sets.forEach((value, w) => value !== undefined && expect(value as number).toBeGreaterThan(setAtStart[w]));
      wraps.forEach((value, w) => value !== undefined && expect(value as number).toBeGreaterThan(wrapAtStart[w]));
    }
  });

  it('refuses a write registered before an invalidation that lands after it (tombstone), deterministically', async () => {
    const runtime = app.get(CacheRuntime);
    const { store } = runtime.engine;
    const entry = runtime.keys.entry('tomb');
    // Step by step, the interleaving a racing set() can produce: register in the tag, invalidation runs, write lands.
    const epoch = await store.registerTag('tomb-tag', entry, 30_000, undefined);
    expect(await cache.invalidateTags('tomb-tag')).toBe(0);
    expect(await store.writeChecked(entry, '1::0:0:"old"', 30_000, '', ['tomb-tag', epoch])).toBe(false);
    expect(await cache.get('tomb')).toBeUndefined();
    // A write registered after the invalidation is accepted.
    expect(await cache.set('tomb', 'new', { tags: ['tomb-tag'] })).toBe(true);
    expect(await cache.get('tomb')).toBe('new');
  });

  it('does not store a loader result when its tag was invalidated during the load (CACHE-6)', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = cache.wrap(
      'slow-load',
      async () => {
        await gate;
        return 'old';
      },
      { tags: ['slow'] },
    );
    await waitFor(() => exists('cache:{slow-load}:lock'), 5000);
    await cache.invalidateTags('slow');
    release();
    expect(await slow).toBe('old');
    expect(await cache.get('slow-load')).toBeUndefined();
    expect(await cache.wrap('slow-load', async () => 'new', { tags: ['slow'] })).toBe('new');
    expect(await cache.get('slow-load')).toBe('new');
  });

  it('does not write back a loader result when del ran during the load', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = cache.wrap('del-during-load', async () => {
      await gate;
      return 'old';
    });
    await waitFor(() => exists('cache:{del-during-load}:lock'), 5000);
    await cache.del('del-during-load');
    release();
    expect(await slow).toBe('old');
    expect(await cache.get('del-during-load')).toBeUndefined();
  });

  it('still caches a loader slower than the fill lock TTL', async () => {
    const value = await cache.wrap('slower-than-lock', async () => {
      await waitFor(async () => !(await exists('cache:{slower-than-lock}:lock')), 5000);
      return 'slow';
    });
    expect(value).toBe('slow');
    expect(await cache.get('slower-than-lock')).toBe('slow');
  });

  it('serves a stale value once while refreshing, then the fresh one (SWR)', async () => {
    let version = 0;
    const loader = async () => ++version;
    const first = await cache.wrapWithStatus('swr', loader, { ttl: 1, staleTtl: 30 });
    expect(first).toEqual({ value: 1, status: 'miss' });
    expect(await cache.wrapWithStatus('swr', loader, { ttl: 1, staleTtl: 30 })).toEqual({ value: 1, status: 'hit' });
    await waitFor(async () => (await inspect.pttl(`${prefix}:cache:{swr}`)) <= 30_000, 5000);
    expect(await cache.wrapWithStatus('swr', loader, { ttl: 1, staleTtl: 30 })).toEqual({ value: 1, status: 'stale' });
    // The refresh ran in the background; the next hit serves what it loaded. (Under load the 1 s fresh window may pass
    // again before the hit, and another stale read starts another refresh: the hit then serves that newer load.)
    let fresh: { value: number; status: string } | undefined;
    await waitFor(async () => (fresh = await cache.wrapWithStatus('swr', loader, { ttl: 1, staleTtl: 30 })).status === 'hit', 5000);
    expect(version).toBeGreaterThanOrEqual(2);
    expect(fresh!.value).toBe(version);
    // A plain get treats a value past its fresh TTL as a miss.
    await cache.wrap('swr-get', loader, { ttl: 0.2, staleTtl: 30 });
    await waitFor(async () => (await inspect.pttl(`${prefix}:cache:{swr-get}`)) <= 30_000, 5000);
    expect(await cache.get('swr-get')).toBeUndefined();
  });

  it('refreshes early with XFetch before expiry while serving the cached value', async () => {
    let calls = 0;
    const loader = async () => {
      calls++;
      await new Promise((resolve) => setTimeout(resolve, 50));
      return calls;
    };
    await cache.wrap('xfetch', loader, { ttl: 1, earlyRefresh: 50 });
    await waitFor(async () => {
      const got = await cache.wrapWithStatus('xfetch', loader, { ttl: 1, earlyRefresh: 50 });
      expect(got.status).toBe('hit');
      return calls >= 2;
    }, 3000);
    expect(calls).toBeGreaterThanOrEqual(2);
  });

  it('rejects bad arguments with errors naming them', async () => {
    await expect(cache.get('')).rejects.toThrow(/"key"/);
    await expect(cache.set('k', 1, { ttl: 0 })).rejects.toThrow(/options\.ttl/);
    await expect(cache.wrap('k', async () => 1, { tags: [''] })).rejects.toThrow(/options\.tags/);
    await expect(cache.invalidateTags('')).rejects.toThrow(InvalidArgumentError);
  });

  it('escapes keys and tags with structure characters', async () => {
    await cache.set('a:b', 1, { tags: ['t:{x}*'] });
    await cache.set('a', 2);
    expect(await cache.get('a:b')).toBe(1);
    expect(await cache.get('a')).toBe(2);
    expect(await cache.invalidateTags('t:{x}*')).toBe(1);
    expect(await cache.get('a')).toBe(2);
  });

  it('leaves no key without a TTL after a mixed workload (invariant 1)', async () => {
    await Promise.all(Array.from({ length: 40 }, (_, i) => cache.wrap(`mix${i}`, async () => i, { tags: [`g${i % 3}`], staleTtl: i % 2 })));
    await cache.invalidateTags('g0');
    await Promise.all(Array.from({ length: 40 }, (_, i) => cache.set(`mix${i}`, i, { tags: ['g1'] })));
    await cache.del('mix1', 'mix2');
    const keys = await inspect.keys(`${prefix}:`);
    expect(keys.some((key) => key.endsWith(':inv'))).toBe(true);
    expect(keys.some((key) => key.endsWith(':e'))).toBe(true);
    expect(await inspect.keysWithoutTtl(`${prefix}:`)).toEqual([]);
  });

  it("with the near cache on, reads this process's own writes, deletes and tag invalidations", async () => {
    const near = await startCache(backend, uniquePrefix(`cache-near-${backend}`), { nearCache: { enabled: true } });
    try {
      const l1 = near.get(CacheService);
      await waitFor(() => l1.nearStats().live, 10_000);
      const twice = async (key: string) => [await l1.get(key), await l1.get(key)];
      await l1.set('own', 'v1', { tags: ['own-tag'] });
      // L1 holds the first value before the checks below, so a stale copy would show.
      await waitFor(
        async () => {
          await twice('own');
          return l1.nearStats().hits > 0;
        },
        2000,
        () => 'no L1 hit',
      );
      await l1.set('own', 'v2', { tags: ['own-tag'] });
      expect(await twice('own')).toEqual(['v2', 'v2']);
      expect(await l1.invalidateTags('own-tag')).toBe(1);
      expect(await twice('own')).toEqual([undefined, undefined]);
      await l1.set('own', 'v3');
      expect(await twice('own')).toEqual(['v3', 'v3']);
      expect(await l1.del('own')).toBe(1);
      expect(await twice('own')).toEqual([undefined, undefined]);
    } finally {
      await near.close();
    }
  });
});

describe.each<TopologyName>(['standalone', 'cluster'])('CacheService on Redis (%s)', (topology) => {
  let app: INestApplication;
  let cache: CacheService;

  beforeAll(async () => {
    app = await startCache(topology, uniquePrefix(`cache-redis-${topology}`));
    cache = app.get(CacheService);
  });

  afterAll(async () => {
    await app?.close();
  });

  it('sends reads alone while few replies are outstanding, shares one MGET among those that wait on a single server, never after a later write', async () => {
    const reads = IN_FLIGHT_WINDOW + 5;
    await Promise.all(Array.from({ length: reads }, (_, i) => cache.set(`turn${i}`, i)));
    const client = app.get(RedisConnections).get();
    const call = jest.spyOn(client, 'call');
    const sent = (name: string) => call.mock.calls.filter(([command]) => command === name).length;
    try {
      const values = await Promise.all(Array.from({ length: reads }, (_, i) => cache.get(`turn${i}`)));
      expect(values).toEqual(Array.from({ length: reads }, (_, i) => i));
      // The first reads fill the window and go alone; the 5 after them share one MGET. A cluster keeps one GET per
      // entry (each entry has its own slot).
      if (topology === 'standalone') expect([sent('mget'), sent('get')]).toEqual([1, IN_FLIGHT_WINDOW]);
      else expect([sent('mget'), sent('get')]).toEqual([0, reads]);
      // Issued in this order in one turn: the read is sent before the write, so it sees the old value.
      const read = cache.get('turn0');
      const written = cache.set('turn0', 'new');
      expect([await read, await written]).toEqual([0, true]);
      expect(await cache.get('turn0')).toBe('new');
    } finally {
      call.mockRestore();
    }
  });
});

describe('CacheService on a named connection', () => {
  it('writes through the connection named by cache.connection (here: database 3)', async () => {
    const url = connectionOf('standalone') as string;
    const prefix = uniquePrefix('cache-named');
    const moduleRef = await Test.createTestingModule({
      imports: [
        RedisPatternsModule.forRoot({
          connection: url,
          connections: { cache: `${url}/3` },
          keyPrefix: prefix,
          cache: { connection: 'cache' },
        }),
      ],
    }).compile();
    const app = moduleRef.createNestApplication();
    await app.init();
    const db0 = new Redis(url);
    const db3 = new Redis(`${url}/3`);
    try {
      await app.get(CacheService).set('where', 'db3');
      expect(await db3.exists(`${prefix}:cache:{where}`)).toBe(1);
      expect(await db0.exists(`${prefix}:cache:{where}`)).toBe(0);
    } finally {
      db0.disconnect();
      db3.disconnect();
      await app.close();
    }
  });
});

function mergeDeep(target: Record<string, any>, source: unknown): void {
  if (typeof source !== 'object' || source === null) return;
  for (const key of Object.keys(source)) {
    const value = (source as Record<string, unknown>)[key];
    if (typeof value === 'object' && value !== null) {
      if (typeof target[key] !== 'object' || target[key] === null) target[key] = {};
      mergeDeep(target[key], value);
    } else target[key] = value;
  }
}
