import { Injectable, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Cluster, type Redis } from 'ioredis';
import { InjectRedis, RedisConnections, RedisPatternsModule } from 'nestjs-redis-patterns';
import { connectionFor, rawClient, type TopologyName, uniquePrefix, waitFor } from '../../support/redis-env';

@Injectable()
class UsesRedis {
  constructor(@InjectRedis() readonly redis: Redis | Cluster) {}
}

async function clientNames(admin: Redis | Cluster): Promise<string[]> {
  const nodes = admin instanceof Cluster ? admin.nodes('master') : [admin];
  const lists = await Promise.all(nodes.map((node) => node.client('LIST') as Promise<string>));
  return lists
    .flatMap((list) => list.split('\n'))
    .map((line) => /name=(\S*)/.exec(line)?.[1] ?? '')
    .filter(Boolean);
}

describe.each<TopologyName>(['standalone', 'cluster', 'sentinel'])('connections on %s', (topology) => {
  let app: INestApplication;
  let admin: Redis | Cluster;
  const prefix = uniquePrefix(`conn-${topology}`);

  beforeAll(async () => {
    admin = rawClient(topology);
    const moduleRef = await Test.createTestingModule({
      imports: [RedisPatternsModule.forRoot({ connection: connectionFor(topology), keyPrefix: prefix })],
      providers: [UsesRedis],
    }).compile();
    app = moduleRef.createNestApplication();
    await app.init();
  });

  afterAll(async () => {
    await app?.close();
    admin.disconnect();
  });

  it('connects, reads and writes through the injected client', async () => {
    const redis = app.get(UsesRedis).redis;
    expect(redis).toBe(app.get(RedisConnections).get());
    await redis.set(`${prefix}:k`, 'v', 'PX', 10_000);
    expect(await redis.get(`${prefix}:k`)).toBe('v');
  });

  it('spreads keys over many slots and masters on a cluster, one call each', async () => {
    const redis = app.get(RedisConnections).get();
    const keys = Array.from({ length: 200 }, (_, i) => `${prefix}:spread:${i}`);
    await Promise.all(keys.map((key, i) => redis.set(key, String(i), 'PX', 10_000)));
    const values = await Promise.all(keys.map((key) => redis.get(key)));
    expect(values).toEqual(keys.map((_, i) => String(i)));
    if (topology === 'cluster') {
      const slots = new Set(await Promise.all(keys.map((key) => admin.cluster('KEYSLOT', key) as Promise<number>)));
      expect(slots.size).toBeGreaterThan(100);
      const perMaster = await Promise.all((admin as Cluster).nodes('master').map((node) => node.dbsize()));
      expect(perMaster.filter((n) => n > 0).length).toBe(3);
    }
  });
});

describe.each<TopologyName>(['standalone', 'cluster', 'sentinel'])('shutdown on %s', (topology) => {
  it('closes every owned connection on app.close(): CLIENT LIST shows none of them', async () => {
    const admin = rawClient(topology);
    const prefix = uniquePrefix(`close-${topology}`);
    const moduleRef = await Test.createTestingModule({
      imports: [
        RedisPatternsModule.forRoot({
          connection: connectionFor(topology),
          connections: { second: connectionFor(topology) },
          keyPrefix: prefix,
        }),
      ],
    }).compile();
    const app = moduleRef.createNestApplication();
    await app.init();
    const connections = app.get(RedisConnections);
    const dedicated = connections.createDedicated(`probe${topology}`);
    await dedicated.ping();
    await connections.get('second').ping();
    // Other spec files share the server: only this application's connections carry its key prefix.
    const ours = (names: string[]) => names.filter((n) => n.startsWith(`redis-patterns:${prefix}:`));
    await waitFor(async () => ours(await clientNames(admin)).some((n) => n.endsWith(`probe${topology}`)), 5000);
    await app.close();
    expect(['end', 'close']).toContain(connections.get().status);
    expect(['end', 'close']).toContain(dedicated.status);
    try {
      await waitFor(
        async () => ours(await clientNames(admin)).length === 0,
        5000,
        () => 'no redis-patterns connection in CLIENT LIST',
      );
    } finally {
      admin.disconnect();
    }
  });
});
