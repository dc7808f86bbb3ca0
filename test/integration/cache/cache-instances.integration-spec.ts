import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Cluster, Redis } from 'ioredis';
import { CacheService, RedisPatternsModule } from 'nestjs-redis-patterns';
import { connectionFor, keysWithoutTtl, rawClient, type TopologyName, uniquePrefix, waitFor } from '../../support/redis-env';

/** Three applications, each with its own module and connections, sharing one Redis (like three pods). */
async function startInstances(topology: TopologyName, prefix: string, cache: Record<string, unknown> = {}): Promise<INestApplication[]> {
  return Promise.all(
    [0, 1, 2].map(async () => {
      const moduleRef = await Test.createTestingModule({
        imports: [RedisPatternsModule.forRoot({ connection: connectionFor(topology), keyPrefix: prefix, cache })],
      }).compile();
      const app = moduleRef.createNestApplication();
      await app.init();
      return app;
    }),
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each<TopologyName>(['standalone', 'cluster'])('cache stampede control across instances on %s', (topology) => {
  let apps: INestApplication[] = [];
  let admin: Redis | Cluster;
  const prefix = uniquePrefix(`cachex-${topology}`);

  beforeAll(async () => {
    admin = rawClient(topology);
    apps = await startInstances(topology, prefix, { lockWaitMs: 3000, lockTtlMs: 2000 });
  });

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    admin.disconnect();
  });

  it('60 concurrent calls on one cold key over three instances run the loader once in total', async () => {
    const services = apps.map((app) => app.get(CacheService));
    expect(new Set(services).size).toBe(3);
    let calls = 0;
    const loader = async () => {
      calls++;
      await sleep(150);
      return { answer: 42 };
    };
    const results = await Promise.all(Array.from({ length: 60 }, (_, i) => services[i % 3].wrap('hot', loader, { ttl: 20 })));
    expect(calls).toBe(1);
    expect(results.every((r) => r.answer === 42)).toBe(true);
    expect(services.reduce((n, s) => n + s.stats().loads, 0)).toBe(1);
  });

  it('when the lock holder fails, a waiter takes over and loads (no one waits for the whole budget)', async () => {
    const [a, b] = apps.map((app) => app.get(CacheService));
    let calls = 0;
    const failing = a.wrap('flaky', async () => {
      calls++;
      await sleep(100);
      throw new Error('source down');
    });
    await waitFor(async () => (await admin.exists(`${prefix}:cache:{flaky}:lock`)) === 1, 5000);
    const started = Date.now();
    const waiter = b.wrap('flaky', async () => {
      calls++;
      return 'from b';
    });
    await expect(failing).rejects.toThrow('source down');
    expect(await waiter).toBe('from b');
    expect(Date.now() - started).toBeLessThan(2000);
    expect(calls).toBe(2);
  });

  it('a waiter never waits past the fill lock TTL or its budget when the holder hangs (CACHE-2)', async () => {
    const [a, b] = apps.map((app) => app.get(CacheService));
    let release!: () => void;
    const hung = a.wrap('hung', () => new Promise<string>((resolve) => (release = () => resolve('late'))));
    await waitFor(async () => (await admin.exists(`${prefix}:cache:{hung}:lock`)) === 1, 5000);
    const started = Date.now();
    expect(await b.wrap('hung', async () => 'self-loaded')).toBe('self-loaded');
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(1500); // it did wait for the fill first (lock TTL 2 s)...
    expect(waited).toBeLessThan(4000); // ...but not past the lock TTL, then loaded by itself
    release();
    expect(await hung).toBe('late');
  });

  it('leaves every key with a TTL', async () => {
    expect(await keysWithoutTtl(admin, `${prefix}:*`)).toEqual([]);
  });
});
