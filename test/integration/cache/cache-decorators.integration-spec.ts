import { Controller, Get, HttpCode, Injectable, type INestApplication, Param, Post, Res, SetMetadata } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { CacheEvict, CachePut, CacheService, Cacheable, InvalidOptionsError, RedisPatternsModule } from 'nestjs-redis-patterns';
import { type BackendName, connectionOf, inspectKeys } from '../../support/backends';
import { uniquePrefix, waitFor } from '../../support/redis-env';

interface Product {
  id: string;
  name: string;
  version: number;
}

@Injectable()
class ProductsService {
  loads = 0;
  names = new Map<string, string>();

  @Cacheable({ key: (id: string) => `product:${id}`, ttl: 30, tags: (id: string) => [`product:${id}`, 'products'] })
  async find(id: string): Promise<Product> {
    this.loads++;
    return { id, name: this.names.get(id) ?? `name-${id}`, version: this.loads };
  }

  @Cacheable({ ttl: 30 })
  async search(query: { q: string; page: number }, limit?: number): Promise<string> {
    this.loads++;
    return `${query.q}:${query.page}:${limit ?? 'all'}:${this.loads}`;
  }

  @Cacheable({
    key: (n: number) => `count:${n}`,
    condition: (n: number) => n >= 0,
    unless: (result: number | null | undefined) => result === -1,
  })
  async count(n: number): Promise<number | null | undefined> {
    this.loads++;
    if (n === 99) return -1;
    if (n === 98) return undefined;
    return n === 0 ? 0 : n === 1 ? null : n;
  }

  @CachePut({ key: (id: string) => `product:${id}`, ttl: 30, tags: (id: string) => [`product:${id}`] })
  async rename(id: string, name: string): Promise<Product> {
    this.names.set(id, name);
    return { id, name, version: -1 };
  }

  @CacheEvict({ tags: (id: string) => [`product:${id}`] })
  async remove(id: string, fail = false): Promise<void> {
    if (fail) throw new Error('refused');
    this.names.delete(id);
  }

  @CacheEvict({ keys: (id: string) => [`product:${id}`], beforeInvocation: true })
  async removeEagerly(id: string): Promise<void> {
    throw new Error(`failed after evicting ${id}`);
  }

  @CacheEvict({ tags: ['products'] })
  async clear(): Promise<void> {}
}

/** What a handler's key functions read of the request (they run before pipes). */
interface IdRequest {
  readonly params: { readonly id: string };
}

@Controller('products')
class ProductsController {
  handled = 0;

  constructor(private readonly products: ProductsService) {}

  @Get(':id')
  @SetMetadata('doc', 'below the route')
  @Cacheable({
    key: (request: IdRequest) => `http:product:${request.params.id}`,
    ttl: 30,
    tags: (request: IdRequest) => [`product:${request.params.id}`],
  })
  async get(@Param('id') id: string): Promise<{ id: string; n: number }> {
    this.handled++;
    return { id, n: this.handled };
  }

  @Cacheable({ key: (request: IdRequest) => `http:stale:${request.params.id}`, ttl: 0.2, staleTtl: 30 })
  @HttpCode(203)
  @Get(':id/stale')
  async stale(@Param('id') id: string): Promise<{ id: string; n: number }> {
    this.handled++;
    return { id, n: this.handled };
  }

  @Post(':id')
  @Cacheable({ key: (request: IdRequest) => `http:post:${request.params.id}`, ttl: 30 })
  async post(@Param('id') _id: string): Promise<{ n: number }> {
    this.handled++;
    return { n: this.handled };
  }

  @Get(':id/personal')
  @Cacheable({ key: (request: IdRequest) => `http:personal:${request.params.id}`, ttl: 30 })
  async personal(
    @Param('id') id: string,
    @Res({ passthrough: true }) res: { cookie(name: string, value: string): void },
  ): Promise<{ n: number }> {
    res.cookie('session', 'secret');
    this.handled++;
    return { n: this.handled };
  }
}

describe.each<BackendName>(['standalone', 'cluster', 'memory'])('cache decorators on %s', (backend) => {
  let app: INestApplication;
  let products: ProductsService;
  let controller: ProductsController;
  const prefix = uniquePrefix(`cachedeco-${backend}`);

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [RedisPatternsModule.forRoot({ connection: connectionOf(backend), keyPrefix: prefix })],
      providers: [ProductsService],
      controllers: [ProductsController],
    }).compile();
    app = moduleRef.createNestApplication();
    await app.init();
    products = app.get(ProductsService);
    controller = app.get(ProductsController);
  });

  afterAll(async () => {
    await app?.close();
  });

  it('@Cacheable on a provider: miss then hit, one load for concurrent callers', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, () => products.find('p1')));
    expect(products.loads).toBe(1);
    expect(results.every((p) => p.version === 1)).toBe(true);
    expect(await products.find('p1')).toEqual({ id: 'p1', name: 'name-p1', version: 1 });
    expect(await app.get(CacheService).get('product:p1')).toEqual({ id: 'p1', name: 'name-p1', version: 1 });
  });

  it('default keys encode the arguments stably', async () => {
    const before = products.loads;
    const a = await products.search({ q: 'x', page: 1 });
    expect(await products.search({ page: 1, q: 'x' })).toBe(a);
    expect(await products.search({ q: 'x', page: 1 }, undefined)).toBe(a);
    expect(await products.search({ q: 'x', page: 2 })).not.toBe(a);
    expect(await products.search({ q: 'x', page: 1 }, 5)).not.toBe(a);
    expect(products.loads).toBe(before + 3);
  });

  it('caches falsy results, not undefined; honours condition and unless', async () => {
    const before = products.loads;
    for (let i = 0; i < 2; i++) {
      expect(await products.count(0)).toBe(0);
      expect(await products.count(1)).toBeNull();
    }
    expect(products.loads).toBe(before + 2);
    for (const n of [98, 98, 99, 99, -5, -5]) await products.count(n);
    expect(products.loads).toBe(before + 8);
  });

  it('@CachePut writes through; @CacheEvict evicts by tag only after success, or before with beforeInvocation', async () => {
    await products.find('p2');
    const put = await products.rename('p2', 'renamed');
    expect(await products.find('p2')).toEqual(put);
    const loads = products.loads;
    await expect(products.remove('p2', true)).rejects.toThrow('refused');
    expect(await products.find('p2')).toEqual(put);
    await products.remove('p2');
    expect((await products.find('p2')).version).toBe(loads + 1);
    await expect(products.removeEagerly('p2')).rejects.toThrow(/failed after evicting/);
    expect((await products.find('p2')).version).toBe(loads + 2);
    await products.clear();
    expect((await products.find('p2')).version).toBe(loads + 3);
  });

  it('@Cacheable on a controller: X-Cache MISS then HIT, tag eviction reaches HTTP entries', async () => {
    const first = await request(app.getHttpServer()).get('/products/c1').expect(200);
    expect(first.headers['x-cache']).toBe('MISS');
    const second = await request(app.getHttpServer()).get('/products/c1').expect(200);
    expect(second.headers['x-cache']).toBe('HIT');
    expect(second.body).toEqual(first.body);
    await products.remove('c1');
    const third = await request(app.getHttpServer()).get('/products/c1').expect(200);
    expect(third.headers['x-cache']).toBe('MISS');
    expect(third.body.n).toBe(first.body.n + 1);
  });

  it('serves STALE on HTTP while refreshing, keeps route metadata (status code, custom metadata)', async () => {
    const server = app.getHttpServer();
    const first = await request(server).get('/products/s1/stale').expect(203);
    expect(first.headers['x-cache']).toBe('MISS');
    const inspect = inspectKeys(backend, app);
    try {
      await waitFor(
        async () => (await inspect.pttl(`${prefix}:cache:{http%3Astale%3As1}`)) <= 30_000,
        5000,
        () => 'the entry to pass its fresh TTL',
      );
    } finally {
      inspect.close();
    }
    const stale = await request(server).get('/products/s1/stale').expect(203);
    expect(stale.headers['x-cache']).toBe('STALE');
    expect(stale.body).toEqual(first.body);
    let fresh = stale;
    await waitFor(
      async () => {
        fresh = await request(server).get('/products/s1/stale').expect(203);
        return fresh.body.n !== first.body.n;
      },
      5000,
      () => 'the background refresh to land',
    );
    expect(fresh.body.n).toBeGreaterThan(first.body.n);
    expect(Reflect.getMetadata('doc', ProductsController.prototype.get)).toBe('below the route');
  });

  it('does not cache non-GET requests or responses that set a cookie', async () => {
    const server = app.getHttpServer();
    const a = await request(server).post('/products/x').expect(201);
    const b = await request(server).post('/products/x').expect(201);
    expect(b.body.n).toBe(a.body.n + 1);
    expect(b.headers['x-cache']).toBeUndefined();
    const c = await request(server).get('/products/x/personal').expect(200);
    const d = await request(server).get('/products/x/personal').expect(200);
    expect(d.headers['x-cache']).toBe('MISS');
    expect(d.body.n).toBe(c.body.n + 1);
    expect(controller.handled).toBeGreaterThan(0);
  });

  it('leaves every key with a TTL', async () => {
    const inspect = inspectKeys(backend, app);
    try {
      // A known entry first: it also connects a cluster client, whose node list (what keys() scans) starts empty.
      expect(await inspect.pttl(`${prefix}:cache:{product%3Ap2}`)).toBeGreaterThan(0);
      expect(await inspect.keys(`${prefix}:`)).toContain(`${prefix}:cache:{product%3Ap2}`);
      expect(await inspect.keysWithoutTtl(`${prefix}:`)).toEqual([]);
    } finally {
      inspect.close();
    }
  });
});

describe('cache decorator options are checked at startup', () => {
  it.each([
    [{ ttl: -1 }, '@Cacheable(BadTtl.find).ttl'],
    [{ ttlSeconds: 5 }, '@Cacheable(BadTtl.find).ttlSeconds'],
    [{ tags: [''] }, '@Cacheable(BadTtl.find).tags'],
    [{ unless: 'yes' }, '@Cacheable(BadTtl.find).unless'],
  ])('%j fails startup naming %s', async (options, option) => {
    @Injectable()
    class BadTtl {
      @Cacheable(options as never)
      async find(): Promise<number> {
        return 1;
      }
    }
    const moduleRef = await Test.createTestingModule({
      imports: [RedisPatternsModule.forRoot({ connection: connectionOf('standalone'), keyPrefix: uniquePrefix('cachebad') })],
      providers: [BadTtl],
    }).compile();
    const app = moduleRef.createNestApplication();
    try {
      const error = await app.init().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(InvalidOptionsError);
      expect((error as InvalidOptionsError).option).toBe(option);
    } finally {
      await app.close().catch(() => undefined);
    }
  });
});
