import { Injectable, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Cluster, type Redis } from 'ioredis';
import { CacheEvict, CacheService, Cacheable, InvalidOptionsError, RedisPatternsModule } from 'nestjs-redis-patterns';
import { connectionFor, keysWithoutTtl, rawClient, type TopologyName, uniquePrefix, waitFor } from '../../support/redis-env';
// The runtime's near cache, an internal, by relative path: the spec finds its invalidation connections.
import { CacheRuntime } from '../../../libs/redis-patterns/src/cache/cache.runtime';

@Injectable()
class CatalogService {
  loads = 0;

  @Cacheable({ key: (id: string) => `item:${id}`, ttl: 30, tags: (id: string) => [`item:${id}`], nearCache: true })
  async find(id: string): Promise<{ id: string; load: number }> {
    this.loads++;
    return { id, load: this.loads };
  }

  @Cacheable({ key: (id: string) => `plain:${id}`, ttl: 30 })
  async plain(id: string): Promise<string> {
    this.loads++;
    return `${id}:${this.loads}`;
  }

  @CacheEvict({ tags: (id: string) => [`item:${id}`] })
  async touch(id: string): Promise<void> {
    void id;
  }
}

/** Two applications (like two pods), each with its own module, connections and L1. */
async function startInstances(topology: TopologyName, prefix: string, nearCache: Record<string, unknown>): Promise<INestApplication[]> {
  return Promise.all(
    [0, 1].map(async () => {
      const moduleRef = await Test.createTestingModule({
        imports: [RedisPatternsModule.forRoot({ connection: connectionFor(topology), keyPrefix: prefix, cache: { jitter: 0, nearCache } })],
        providers: [CatalogService],
      }).compile();
      const app = moduleRef.createNestApplication();
      await app.init();
      return app;
    }),
  );
}

/** The near-cache connections of one instance, found by client name on every master. */
async function nearClientIds(admin: Redis | Cluster, prefix: string): Promise<Array<{ node: Redis; id: string; addr: string }>> {
  const nodes = admin instanceof Cluster ? admin.nodes('master') : [admin];
  const found: Array<{ node: Redis; id: string; addr: string }> = [];
  for (const node of nodes) {
    const list = (await node.client('LIST')) as string;
    for (const line of list.split('\n')) {
      if (!line.includes(`name=redis-patterns:${prefix}:default:near-cache`)) continue;
      found.push({ node, id: /(?:^| )id=(\d+)/.exec(line)![1], addr: / addr=(\S+)/.exec(line)![1] });
    }
  }
  return found;
}

/**
 * Reads until one is answered from L1. The first read after a write may be a Redis hit that is not kept: the
 * write's invalidation message can arrive while that read is in flight, and such a read is discarded on purpose.
 */
async function untilL1Hit(cache: CacheService, read: () => Promise<unknown>): Promise<void> {
  await waitFor(
    async () => {
      const hits = cache.nearStats().hits;
      await read();
      return cache.nearStats().hits === hits + 1;
    },
    2000,
    () => 'no L1 hit',
  );
}

describe.each<TopologyName>(['standalone', 'cluster'])('near cache on %s', (topology) => {
  let apps: INestApplication[] = [];
  let a: CacheService;
  let b: CacheService;
  let admin: Redis | Cluster;
  const prefix = uniquePrefix(`near-${topology}`);

  beforeAll(async () => {
    admin = rawClient(topology);
    apps = await startInstances(topology, prefix, { enabled: true, maxEntries: 1000 });
    [a, b] = apps.map((app) => app.get(CacheService));
    await waitFor(() => a.nearStats().live && b.nearStats().live, 10_000);
  });

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    admin.disconnect();
  });

  it('tracks on every master: one invalidation connection per master per instance', async () => {
    const masters = admin instanceof Cluster ? admin.nodes('master').length : 1;
    expect(await nearClientIds(admin, prefix)).toHaveLength(2 * masters);
  });

  it('serves a repeated read from L1 without Redis', async () => {
    await a.set('hello', { n: 1 }, { ttl: 30 });
    expect(await b.get('hello')).toEqual({ n: 1 });
    await untilL1Hit(b, () => b.get('hello'));
    const before = b.nearStats();
    const values = await Promise.all(Array.from({ length: 50 }, () => b.get<{ n: number }>('hello')));
    expect(values.every((v) => v?.n === 1)).toBe(true);
    expect(b.nearStats().hits - before.hits).toBe(50);
    // Hits share one frozen value: mutating it fails loudly instead of changing what the next caller gets.
    expect(() => {
      values[0]!.n = 99;
    }).toThrow(TypeError);
    expect(await b.get('hello')).toEqual({ n: 1 });
  });

  it("a write on one instance invalidates the other instance's L1", async () => {
    for (const [i, key] of ['w1', 'w2', 'w3', 'w4', 'w5', 'w6'].entries()) {
      await a.set(key, `v1-${i}`, { ttl: 30 });
      expect(await b.get(key)).toBe(`v1-${i}`);
      expect(await b.get(key)).toBe(`v1-${i}`); // now from L1
      await a.set(key, `v2-${i}`, { ttl: 30 });
      await waitFor(
        async () => (await b.get(key)) === `v2-${i}`,
        2000,
        () => `instance b still serves the old ${key}`,
      );
    }
    expect(b.nearStats().invalidations).toBeGreaterThanOrEqual(6);
  });

  it("a delete and a tag invalidation on one instance invalidate the other instance's L1", async () => {
    let loads = 0;
    const loader = async () => ++loads;
    expect(await b.wrap('tagged', loader, { ttl: 30, tags: ['group'] })).toBe(1);
    expect(await b.wrap('tagged', loader, { ttl: 30, tags: ['group'] })).toBe(1);
    expect(await a.invalidateTags('group')).toBe(1);
    await waitFor(async () => (await b.wrap('tagged', loader, { ttl: 30, tags: ['group'] })) === 2, 2000);

    await a.set('doomed', 'here', { ttl: 30 });
    expect(await b.get('doomed')).toBe('here');
    expect(await b.get('doomed')).toBe('here');
    await a.del('doomed');
    await waitFor(async () => (await b.get('doomed')) === undefined, 2000);
  });

  it('@Cacheable({ nearCache: true }) hits L1, and @CacheEvict on the other instance invalidates it', async () => {
    const [sa, sb] = apps.map((app) => app.get(CatalogService));
    const first = await sb.find('42');
    // L1 is filled by reads of Redis, not by this instance's own writes.
    await untilL1Hit(b, () => sb.find('42'));
    expect(await sb.find('42')).toEqual(first);
    expect(sb.loads).toBe(1);
    await sa.touch('42');
    await waitFor(async () => (await sb.find('42')).load !== first.load, 2000);
  });

  it('under concurrent reads, the other instance converges on the last write and never serves an older one after', async () => {
    await a.set('race', 0, { ttl: 30 });
    let writing = true;
    const readers = Array.from({ length: 8 }, async () => {
      while (writing) {
        await b.get('race');
        await new Promise(setImmediate); // L1 hits resolve at once: let the writer's I/O run
      }
    });
    for (let v = 1; v <= 40; v++) await a.set('race', v, { ttl: 30 });
    writing = false;
    await Promise.all(readers);
    await waitFor(async () => (await b.get('race')) === 40, 2000);
    const after = await Promise.all(Array.from({ length: 200 }, () => b.get('race')));
    expect(after.every((v) => v === 40)).toBe(true);
  });

  it('killing the invalidation connection clears L1; it refills once tracking is back', async () => {
    await a.set('k1', 'v', { ttl: 30 });
    await untilL1Hit(b, () => b.get('k1'));
    expect(b.nearStats().entries).toBeGreaterThan(0);
    const clears = b.nearStats().clears;
    // b's own invalidation connection on the master that holds k1, found by its local port in CLIENT LIST.
    const ours = new Set(
      apps[1]
        .get(CacheRuntime)
        .near.connections()
        .map((client) => `127.0.0.1:${(client as Redis).stream.localPort}`),
    );
    const victim = (await nearClientIds(admin, prefix)).find((c) => ours.has(c.addr));
    expect(victim).toBeDefined();
    await victim!.node.client('KILL', 'ID', victim!.id);
    await waitFor(() => b.nearStats().clears > clears && !b.nearStats().live, 5000);
    expect(b.nearStats().entries).toBe(0);
    // A write while it reconnects cannot be missed: the copy is gone and reads go to Redis until tracking is back.
    await a.set('k1', 'v2', { ttl: 30 });
    expect(await b.get('k1')).toBe('v2');
    await waitFor(() => b.nearStats().live, 10_000);
    expect(await nearClientIds(admin, prefix)).toHaveLength(2 * (admin instanceof Cluster ? admin.nodes('master').length : 1));
    await untilL1Hit(b, () => b.get('k1'));
    expect(await b.get('k1')).toBe('v2');
  });

  it('never serves a value from L1 after its Redis TTL', async () => {
    const hitsBefore = b.nearStats().hits;
    await a.set('short', 'soon gone', { ttl: 1 });
    // The server's own expiry time (same machine clock as Date.now()).
    const expiresAt = Number(await admin.call('PEXPIRETIME', `${prefix}:cache:{short}`));
    expect(expiresAt).toBeGreaterThan(Date.now());
    const late: number[] = [];
    let served = 0;
    while (Date.now() < expiresAt + 300) {
      const started = Date.now();
      const value = await b.get('short');
      if (value !== undefined) {
        served++;
        if (started > expiresAt) late.push(started - expiresAt);
      }
    }
    expect(served).toBeGreaterThan(0);
    expect(b.nearStats().hits).toBeGreaterThan(hitsBefore);
    expect(late).toEqual([]);
  });

  it('leaves every key with a TTL', async () => {
    expect(await keysWithoutTtl(admin, `${prefix}:*`)).toEqual([]);
  });
});

describe('near cache options', () => {
  const compile = (cache: Record<string, unknown>, providers: Array<new (...args: never[]) => unknown> = []) =>
    Test.createTestingModule({
      imports: [RedisPatternsModule.forRoot({ connection: connectionFor('standalone'), keyPrefix: uniquePrefix('near-opts'), cache })],
      providers,
    })
      .compile()
      .then(async (moduleRef) => {
        const app = moduleRef.createNestApplication();
        try {
          await app.init();
        } finally {
          await app.close();
        }
      });

  it('fail at startup naming the option', async () => {
    await expect(compile({ nearCache: { enabled: true, maxBytes: 10 } })).rejects.toThrow('cache.nearCache.maxBytes');
    await expect(compile({ nearCache: { enabled: true, size: 10 } })).rejects.toThrow(InvalidOptionsError);
  });

  it('a bad per-decorator nearCache fails startup naming the method', async () => {
    @Injectable()
    class Bad {
      @Cacheable({ key: 'x', nearCache: 'yes' as unknown as boolean })
      async get(): Promise<number> {
        return 1;
      }
    }
    await expect(compile({}, [Bad])).rejects.toThrow('@Cacheable(Bad.get).nearCache');
  });

  it('is off by default: only methods that opt in use L1', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [RedisPatternsModule.forRoot({ connection: connectionFor('standalone'), keyPrefix: uniquePrefix('near-off'), cache: {} })],
      providers: [CatalogService],
    }).compile();
    const app = moduleRef.createNestApplication();
    await app.init();
    try {
      const cache = app.get(CacheService);
      const catalog = app.get(CatalogService);
      await waitFor(() => cache.nearStats().live, 10_000); // started by the opted-in @Cacheable
      await cache.set('svc', 1, { ttl: 30 });
      await cache.get('svc');
      await cache.get('svc');
      await catalog.plain('p');
      await catalog.plain('p');
      expect(cache.nearStats().hits).toBe(0);
      await catalog.find('f');
      await untilL1Hit(cache, () => catalog.find('f'));
    } finally {
      await app.close();
    }
  });
});
