import { CACHE_MANAGER, CacheInterceptor, CacheModule, CacheTTL } from '@nestjs/cache-manager';
import { Controller, Get, type INestApplication, Param, UseInterceptors } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Cache } from 'cache-manager';
import { Keyv } from 'keyv';
import request from 'supertest';
import { CacheService, InvalidArgumentError, RedisPatternsModule } from 'nestjs-redis-patterns';
import { RedisPatternsKeyvStore } from 'nestjs-redis-patterns/adapters';
import { type BackendName, connectionOf, inspectKeys } from '../../support/backends';
import { uniquePrefix } from '../../support/redis-env';

let renders = 0;

@Controller('articles')
class ArticlesController {
  @Get(':id')
  @UseInterceptors(CacheInterceptor)
  @CacheTTL(30_000)
  article(@Param('id') id: string) {
    renders++;
    return { id, title: `Article ${id}`, renderedAt: new Date('2026-01-01T00:00:00Z') };
  }
}

/** An application whose @nestjs/cache-manager CacheModule stores in this module's cache, as the migration guide wires it. */
async function cachedApp(backend: BackendName, keyPrefix: string): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({
    imports: [
      RedisPatternsModule.forRoot({ connection: connectionOf(backend), keyPrefix, cache: { defaultTtl: 120 } }),
      CacheModule.registerAsync({
        inject: [CacheService],
        useFactory: (cache: CacheService) => ({
          // `as never`: keyv ships separate CommonJS and ES module typings, and cache-manager's options name the other one.
          stores: [new Keyv({ store: new RedisPatternsKeyvStore(cache), namespace: 'articles' }) as never],
        }),
      }),
    ],
    controllers: [ArticlesController],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.listen(0, '127.0.0.1');
  return app;
}

describe.each<BackendName>(['standalone', 'cluster', 'memory'])('RedisPatternsKeyvStore under @nestjs/cache-manager on %s', (backend) => {
  let apps: INestApplication[];
  const prefix = uniquePrefix(`keyv-${backend}`);

  beforeAll(async () => {
    apps = [];
    for (let i = 0; i < (backend === 'memory' ? 1 : 2); i++) apps.push(await cachedApp(backend, prefix));
  });

  afterAll(async () => {
    for (const app of apps ?? []) await app.close();
  });

  it('serves CacheInterceptor hits from the store, shared across instances', async () => {
    renders = 0;
    const first = await request(apps[0].getHttpServer()).get('/articles/1').expect(200);
    const again = await request(apps[apps.length - 1].getHttpServer())
      .get('/articles/1')
      .expect(200);
    expect(again.body).toEqual(first.body);
    expect(renders).toBe(1);
  });

  it('writes the entry with the TTL the interceptor gave, under the module key prefix', async () => {
    const written = Date.now();
    await request(apps[0].getHttpServer()).get('/articles/2').expect(200);
    const keys = inspectKeys(backend, apps[0]);
    try {
      const entries = (await keys.keys(`${prefix}:cache:`)).filter((key) => key.endsWith('/articles/2}'));
      expect(entries).toHaveLength(1);
      const ttl = await keys.pttl(entries[0]);
      // 30 s from @CacheTTL, less the module's jitter (up to 10%) and what the clock has used since the request.
      expect(ttl).toBeGreaterThan(27_000 - (Date.now() - written) - 5);
      expect(ttl).toBeLessThanOrEqual(30_000);
      expect(await keys.keysWithoutTtl(`${prefix}:`)).toEqual([]);
    } finally {
      keys.close();
    }
  });

  it('works as the cache manager: get, set with a TTL, mget, del, and a default TTL when none is given', async () => {
    const manager = apps[0].get<Cache>(CACHE_MANAGER);
    await manager.set('greeting', { text: 'hello', at: new Date(0) }, 10_000);
    expect(await manager.get('greeting')).toEqual({ text: 'hello', at: new Date(0).toISOString() });
    await manager.mset([
      { key: 'a', value: 1 },
      { key: 'b', value: 2, ttl: 5_000 },
    ]);
    expect(await manager.mget(['a', 'b', 'missing'])).toEqual([1, 2, undefined]);
    await manager.del('a');
    expect(await manager.get('a')).toBeUndefined();
    const keys = inspectKeys(backend, apps[0]);
    try {
      const [bKey] = (await keys.keys(`${prefix}:cache:`)).filter((key) => key.endsWith('%3Ab}'));
      expect(await keys.pttl(bKey)).toBeLessThanOrEqual(5_000);
      // No TTL from the caller: the module's cache.defaultTtl (120 s), never forever.
      await manager.set('forever?', 'no');
      const [noTtl] = (await keys.keys(`${prefix}:cache:`)).filter((key) => key.includes('forever'));
      expect(await keys.pttl(noTtl)).toBeGreaterThan(100_000);
    } finally {
      keys.close();
    }
  });

  it('clear() removes the Keyv namespace only', async () => {
    const cache = apps[0].get(CacheService);
    await cache.set('unrelated:1', 'kept');
    const manager = apps[0].get<Cache>(CACHE_MANAGER);
    await manager.set('to-clear', 'x');
    await request(apps[0].getHttpServer()).get('/articles/3').expect(200);
    await manager.clear();
    expect(await manager.get('to-clear')).toBeUndefined();
    expect(await cache.get('articles:/articles/3')).toBeUndefined();
    expect(await cache.get('unrelated:1')).toBe('kept');
    renders = 0;
    await request(apps[0].getHttpServer()).get('/articles/3').expect(200);
    expect(renders).toBe(1);
  });
});

describe.each<BackendName>(['standalone', 'cluster', 'memory'])('CacheService setMany, delMany and clear on %s', (backend) => {
  let app: INestApplication;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [RedisPatternsModule.forRoot({ connection: connectionOf(backend), keyPrefix: uniquePrefix(`cachens-${backend}`) })],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();
  });

  afterAll(async () => {
    await app?.close();
  });

  it('sets several values with their own options and deletes several keys', async () => {
    const cache = app.get(CacheService);
    expect(
      await cache.setMany([
        { key: 'm:1', value: { n: 1 } },
        { key: 'm:2', value: [2], options: { ttl: 5 } },
        { key: 'm:3', value: 'three', options: { tags: ['m'] } },
      ]),
    ).toEqual([true, true, true]);
    expect(await cache.getMany(['m:1', 'm:2', 'm:3'])).toEqual([{ n: 1 }, [2], 'three']);
    expect(await cache.delMany(['m:1', 'm:2', 'nope'])).toBe(2);
    expect(await cache.invalidateTags('m')).toBe(1);
    await expect(
      cache.setMany([
        { key: 'ok', value: 1 },
        { key: 'bad', value: undefined },
      ]),
    ).rejects.toThrow(InvalidArgumentError);
    // Nothing of a rejected batch is written.
    expect(await cache.get('ok')).toBeUndefined();
  });

  it("keeps Dates, Maps and BigInts through Keyv with Keyv's own serializer turned off", async () => {
    const keyv = new Keyv({
      store: new RedisPatternsKeyvStore(app.get(CacheService)),
      namespace: 'typed',
      serialize: undefined,
      deserialize: undefined,
    });
    const value = { at: new Date(5), tags: new Map([['a', 1n]]) };
    expect(await keyv.set('v', value, 10_000)).toBe(true);
    const back = (await keyv.get('v')) as typeof value;
    expect(back.at).toBeInstanceOf(Date);
    expect(back.at.getTime()).toBe(5);
    expect(back.tags.get('a')).toBe(1n);
    expect(await keyv.has('v')).toBe(true);
    expect(await keyv.delete('v')).toBe(true);
    expect(await keyv.get('v')).toBeUndefined();
  });

  it('clears a namespace across every slot (1500 keys over the masters), and nothing outside it', async () => {
    const cache = app.get(CacheService);
    await cache.setMany(Array.from({ length: 1500 }, (_, i) => ({ key: `tenant:acme:${i}`, value: i })));
    await cache.setMany(Array.from({ length: 20 }, (_, i) => ({ key: `tenant:globex:${i}`, value: i })));
    // The escaping of ':' and braces must not let a prefix match more than it says.
    await cache.set('tenant:acme', 'the bare prefix is a key of its own');
    expect(await cache.clear('tenant:acme:')).toBe(1500);
    expect(await cache.getMany(['tenant:acme:0', 'tenant:acme:1499'])).toEqual([undefined, undefined]);
    expect(await cache.get('tenant:acme')).toBe('the bare prefix is a key of its own');
    expect(await cache.get('tenant:globex:19')).toBe(19);
    expect(await cache.clear('tenant:acme:')).toBe(0);
    await expect(cache.clear('')).rejects.toThrow(InvalidArgumentError);
    await expect(cache.clear(':'.repeat(100))).rejects.toThrow(InvalidArgumentError);
  });
});
