import { Controller, Get, Injectable, type INestApplication, Param } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import {
  Cacheable,
  CachePut,
  CacheService,
  CacheValueTooLargeError,
  InvalidOptionsError,
  RedisPatternsModule,
  type RedisPatternsModuleOptions,
} from 'nestjs-redis-patterns';
import { msgpackCodec } from '../../../docs/examples/cache-codec-msgpack';
import { type BackendName, connectionOf, inspectKeys, type KeyInspector } from '../../support/backends';
import { uniquePrefix } from '../../support/redis-env';

const report = {
  title: 'Quarterly',
  at: new Date('2026-03-31T00:00:00Z'),
  tags: new Set(['finance', 'q1']),
  total: 123456789012345678901234567890n,
  rows: Array.from({ length: 300 }, (_, i) => ({ id: i, region: `region ${i % 7}`, amount: i * 12.5 })),
};

@Injectable()
class Reports {
  loads = 0;

  // Empty results are kept briefly, others long: the TTL is a function of the result (and the arguments).
  @Cacheable({
    key: (region: string) => `rows:${region}`,
    ttl: (rows: unknown[], region: string) => (rows.length === 0 ? 5 : region === 'eu' ? 600 : 300),
  })
  async rows(region: string): Promise<unknown[]> {
    this.loads++;
    return region === 'none' ? [] : [{ region }];
  }

  @Cacheable({ key: (id: string) => `packed:${id}`, codec: msgpackCodec })
  async packed(id: string): Promise<typeof report> {
    this.loads++;
    return { ...report, title: id };
  }

  @CachePut({ key: (id: string) => `put:${id}`, ttl: (result: { pinned: boolean }) => (result.pinned ? 3600 : 60) })
  async save(id: string, pinned: boolean): Promise<{ id: string; pinned: boolean }> {
    return { id, pinned };
  }
}

@Controller('reports')
class ReportsController {
  loads = 0;

  @Get(':id')
  @Cacheable({ ttl: (body: { size: number }) => (body.size > 100 ? 30 : 120) })
  report(@Param('id') id: string) {
    this.loads++;
    return { id, size: Number(id) };
  }
}

async function start(backend: BackendName, keyPrefix: string, cache: RedisPatternsModuleOptions['cache']): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({
    imports: [RedisPatternsModule.forRoot({ connection: connectionOf(backend), keyPrefix, cache })],
    controllers: [ReportsController],
    providers: [Reports],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.listen(0, '127.0.0.1');
  return app;
}

describe.each<BackendName>(['standalone', 'cluster', 'memory'])('cache codecs, compression and TTL functions on %s', (backend) => {
  let app: INestApplication;
  let packedApp: INestApplication;
  let keys: KeyInspector;
  const prefix = uniquePrefix(`codec-${backend}`);

  beforeAll(async () => {
    app = await start(backend, prefix, { jitter: 0, maxValueBytes: 16 * 1024, compression: { algorithm: 'brotli', thresholdBytes: 1024 } });
    // Another instance whose module codec is MessagePack, reading what the first wrote with JSON (cache.codecs).
    packedApp = await start(backend, prefix, { jitter: 0, codec: msgpackCodec, maxValueBytes: 16 * 1024 });
    keys = inspectKeys(backend, app);
  });

  afterAll(async () => {
    keys?.close();
    await app?.close();
    await packedApp?.close();
  });

  const raw = async (key: string): Promise<string> => {
    const [entry] = (await keys.keys(`${prefix}:cache:`)).filter((k) => k.endsWith(`{${key.replace(/:/g, '%3A')}}`));
    return (await keys.get(entry))!;
  };
  const ttlOf = async (key: string): Promise<number> => {
    const [entry] = (await keys.keys(`${prefix}:cache:`)).filter((k) => k.endsWith(`{${key.replace(/:/g, '%3A')}}`));
    return keys.pttl(entry);
  };

  it('compresses values above the threshold and reads them back as they were', async () => {
    const cache = app.get(CacheService);
    expect(await cache.set('report', report)).toBe(true);
    const stored = await raw('report');
    expect(stored.startsWith('2:tbz:')).toBe(true);
    expect(stored.length).toBeLessThan(JSON.stringify({ ...report, tags: [], total: 0 }).length / 3);
    const back = (await cache.get<typeof report>('report'))!;
    expect(back).toEqual(report);
    expect(back.at).toBeInstanceOf(Date);
    expect(await cache.getMany(['report', 'absent'])).toEqual([report, undefined]);
    // Below the threshold, the usual layout.
    await cache.set('small', { a: 1 });
    expect(await raw('small')).toBe('1::0:0:{"a":1}');
  });

  it('bounds what is stored, compressed: a value too big as JSON fits once compressed', async () => {
    const big = { text: 'lorem ipsum dolor sit amet '.repeat(1500) };
    expect(JSON.stringify(big).length).toBeGreaterThan(16 * 1024);
    expect(await app.get(CacheService).set('big', big)).toBe(true);
    expect(await app.get(CacheService).get('big')).toEqual(big);
    await expect(packedApp.get(CacheService).set('big-uncompressed', big)).rejects.toThrow(CacheValueTooLargeError);
  });

  it('stores with the module codec of its instance', async () => {
    await packedApp.get(CacheService).set('packed-by-module', report);
    expect(await packedApp.get(CacheService).get('packed-by-module')).toEqual({ ...report });
  });

  it("uses a decorator's codec for its entries, readable through CacheService", async () => {
    const reports = app.get(Reports);
    const loads = reports.loads;
    const first = await reports.packed('r1');
    expect(await reports.packed('r1')).toEqual(first);
    expect(reports.loads).toBe(loads + 1);
    // msgpack output above the threshold is compressed too.
    expect(await raw('packed:r1')).toMatch(/^2:bz:0:\d+:msgpack:/);
    expect(await app.get(CacheService).get('packed:r1')).toEqual({ ...report, title: 'r1' });
  });

  it('takes the TTL from the result and the arguments, on providers and handlers', async () => {
    const reports = app.get(Reports);
    await reports.rows('none');
    await reports.rows('eu');
    await reports.rows('us');
    expect(await ttlOf('rows:none')).toBeLessThanOrEqual(5_000);
    expect(await ttlOf('rows:eu')).toBeGreaterThan(590_000);
    const us = await ttlOf('rows:us');
    expect(us).toBeGreaterThan(290_000);
    expect(us).toBeLessThanOrEqual(300_000);
    await reports.save('a', true);
    await reports.save('b', false);
    expect(await ttlOf('put:a')).toBeGreaterThan(3_500_000);
    expect(await ttlOf('put:b')).toBeLessThanOrEqual(60_000);
    const http = request(app.getHttpServer());
    expect((await http.get('/reports/500').expect(200)).headers['x-cache']).toBe('MISS');
    expect((await http.get('/reports/500').expect(200)).headers['x-cache']).toBe('HIT');
    const controllerKeys = (await keys.keys(`${prefix}:cache:`)).filter((k) => k.includes('ReportsController'));
    expect(controllerKeys).toHaveLength(1);
    expect(await keys.pttl(controllerKeys[0])).toBeLessThanOrEqual(30_000);
  });

  it('takes a TTL function on wrap, and skips a write whose TTL function answers nonsense', async () => {
    const cache = app.get(CacheService);
    await cache.wrap('wrapped', async () => ({ hot: true }), { ttl: (value: { hot: boolean }) => (value.hot ? 20 : 200) });
    expect(await ttlOf('wrapped')).toBeLessThanOrEqual(20_000);
    let calls = 0;
    const loader = async () => ++calls;
    expect(await cache.wrap('nonsense', loader, { ttl: () => -1 })).toBe(1);
    expect(await cache.wrap('nonsense', loader, { ttl: () => -1 })).toBe(2);
    await expect(cache.set('nonsense', 1, { ttl: () => Number.NaN })).rejects.toThrow(/ttl\(value\)/);
  });

  it('writes every entry with a TTL', async () => {
    expect(await keys.keysWithoutTtl(`${prefix}:`)).toEqual([]);
  });
});

describe.each<BackendName>(['standalone', 'cluster'])('cache codecs across instances on %s', (backend) => {
  let jsonApp: INestApplication;
  let packedApp: INestApplication;
  let keys: KeyInspector;
  const prefix = uniquePrefix(`codecx-${backend}`);

  beforeAll(async () => {
    jsonApp = await start(backend, prefix, { compression: { algorithm: 'gzip', thresholdBytes: 512 } });
    packedApp = await start(backend, prefix, { codec: msgpackCodec });
    keys = inspectKeys(backend, jsonApp);
  });

  afterAll(async () => {
    keys?.close();
    await jsonApp?.close();
    await packedApp?.close();
  });

  it('each instance reads what the other wrote with its own codec (codecs known by format)', async () => {
    await packedApp.get(CacheService).set('by-msgpack', report);
    await jsonApp.get(CacheService).set('by-json', report);
    const [packedKey] = (await keys.keys(`${prefix}:cache:`)).filter((k) => k.endsWith('{by-msgpack}'));
    expect((await keys.get(packedKey))!.startsWith('2:b:0:0:msgpack:')).toBe(true);
    const [jsonKey] = (await keys.keys(`${prefix}:cache:`)).filter((k) => k.endsWith('{by-json}'));
    expect((await keys.get(jsonKey))!.startsWith('2:tbg:0:0:json:')).toBe(true);
    // The JSON instance knows msgpack through the decorator of Reports (registered at bootstrap).
    expect(await jsonApp.get(CacheService).get('by-msgpack')).toEqual(report);
    expect(await packedApp.get(CacheService).get('by-json')).toEqual(report);
  });
});

describe('cache codec and compression options', () => {
  const attempt = async (cache: RedisPatternsModuleOptions['cache']) => {
    const error = await Test.createTestingModule({ imports: [RedisPatternsModule.forRoot({ connection: 'memory://', cache })] })
      .compile()
      .then((moduleRef) => moduleRef.close())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidOptionsError);
    return (error as InvalidOptionsError).option;
  };

  it('fail startup naming the option', async () => {
    expect(await attempt({ codec: { format: 'Bad Format', encode: () => '', decode: () => 1 } })).toBe('cache.codec');
    expect(await attempt({ codec: { ...msgpackCodec, format: 'json' } })).toBe('cache.codec');
    expect(await attempt({ codecs: [msgpackCodec, { format: 'x' } as never] })).toBe('cache.codecs[1]');
    expect(await attempt({ compression: { algorithm: 'zstd' as 'gzip' } })).toBe('cache.compression.algorithm');
    expect(await attempt({ compression: { algorithm: 'gzip', level: 11 } })).toBe('cache.compression.level');
    expect(await attempt({ compression: { thresholdBytes: -1 } })).toBe('cache.compression.thresholdBytes');
  });
});
