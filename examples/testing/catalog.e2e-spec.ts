// Testing your application with a real, throwaway Redis: one server per test file (useTestRedis), and only the
// application's keys cleared between tests (clearKeys). Run by this repository's `npm test`.
import { Controller, Get, type INestApplication, Injectable, Param } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { Cacheable, RateLimit, RedisPatternsModule } from 'nestjs-redis-patterns';
import { clearKeys, useTestRedis } from 'nestjs-redis-patterns/testing';

@Injectable()
class CatalogService {
  loads = 0;

  @Cacheable({ key: (id: string) => `product:${id}`, ttl: 60 })
  async product(id: string): Promise<{ id: string; name: string }> {
    this.loads++;
    return { id, name: `Product ${id}` };
  }
}

@Controller('products')
class CatalogController {
  constructor(private readonly catalog: CatalogService) {}

  @Get(':id')
  @RateLimit({ algorithm: 'fixed-window', limit: 3, windowMs: 60_000 })
  product(@Param('id') id: string) {
    return this.catalog.product(id);
  }
}

describe('catalog (e2e, real Redis)', () => {
  const redis = useTestRedis();
  let app: INestApplication;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [RedisPatternsModule.forRoot({ connection: redis.connection, keyPrefix: 'catalog-test' })],
      controllers: [CatalogController],
      providers: [CatalogService],
    }).compile();
    app = moduleRef.createNestApplication();
    await app.init();
  });

  // Each test starts from an empty cache and fresh rate-limit budgets.
  afterEach(() => clearKeys(app));
  afterAll(() => app.close());

  it('loads a product once, then serves it from the cache', async () => {
    const catalog = app.get(CatalogService);
    await request(app.getHttpServer()).get('/products/7').expect(200, { id: '7', name: 'Product 7' });
    await request(app.getHttpServer()).get('/products/7').expect(200);
    expect(catalog.loads).toBe(1);
  });

  it('answers 429 past the limit', async () => {
    for (let i = 0; i < 3; i++) await request(app.getHttpServer()).get('/products/1').expect(200);
    const denied = await request(app.getHttpServer()).get('/products/1').expect(429);
    expect(Number(denied.headers['retry-after'])).toBeGreaterThan(0);
  });
});
