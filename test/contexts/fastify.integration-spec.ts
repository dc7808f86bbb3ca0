import { Controller, Get, Param, Post } from '@nestjs/common';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { Cacheable, LockService, RateLimit, RedisPatternsModule, WithLock } from 'nestjs-redis-patterns';
import { connectionFor, uniquePrefix } from '../support/redis-env';

const MINUTE = 60_000;

/** What a handler's key function reads of Fastify's request (it runs before pipes). */
interface RouteRequest {
  readonly params: { readonly id: string };
}

@Controller('fastify')
class CatalogController {
  loads = 0;

  @Get('products/:id')
  @Cacheable({ key: (request: RouteRequest) => `product:${request.params.id}`, ttl: 60 })
  async product(@Param('id') id: string): Promise<{ id: string; load: number }> {
    this.loads++;
    return { id, load: this.loads };
  }

  @Get('search')
  @RateLimit({ algorithm: 'fixed-window', limit: 2, windowMs: MINUTE })
  search(): { ok: true } {
    return { ok: true };
  }

  @Post('orders/:id/pay')
  @WithLock({ resource: (request: RouteRequest) => `order:${request.params.id}`, ttlMs: 5000 })
  async pay(@Param('id') id: string): Promise<{ paid: string }> {
    return { paid: id };
  }
}

describe('decorators on the Fastify adapter (real HTTP)', () => {
  let app: NestFastifyApplication;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [RedisPatternsModule.forRoot({ connection: connectionFor('standalone'), keyPrefix: uniquePrefix('fastify') })],
      controllers: [CatalogController],
    }).compile();
    app = moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), { logger: false });
    await app.listen(0, '127.0.0.1');
  });

  afterAll(() => app?.close());

  const http = () => request(app.getHttpServer());

  it('caches a handler and says so in X-Cache (MISS, then HIT), per route parameter', async () => {
    const miss = await http().get('/fastify/products/1').timeout(3000).expect(200);
    const other = await http().get('/fastify/products/2').timeout(3000).expect(200);
    const hit = await http().get('/fastify/products/1').timeout(3000).expect(200);
    expect(miss.headers['x-cache']).toBe('MISS');
    expect(hit.headers['x-cache']).toBe('HIT');
    expect(hit.body).toEqual(miss.body);
    expect(other.body).toEqual({ id: '2', load: 2 });
    expect(app.get(CatalogController).loads).toBe(2);
  });

  it('rate-limits with the IETF headers, then 429 with Retry-After', async () => {
    const first = await http().get('/fastify/search').timeout(3000).expect(200);
    expect(first.headers['ratelimit-policy']).toBe('"default";q=2;w=60');
    expect(first.headers['ratelimit']).toBe('"default";r=1;t=60');
    await http().get('/fastify/search').timeout(3000).expect(200);
    const denied = await http().get('/fastify/search').timeout(3000).expect(429);
    expect(Number(denied.headers['retry-after'])).toBeGreaterThan(0);
    expect(denied.body).toMatchObject({ statusCode: 429, message: 'Rate limit exceeded' });
  });

  it('answers lock contention with 409 and Retry-After', async () => {
    const held = await app.get(LockService).tryAcquire('order:7', { ttlMs: 5000 });
    try {
      const conflict = await http().post('/fastify/orders/7/pay').timeout(3000).expect(409);
      expect(Number(conflict.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      await held?.release();
    }
    await http().post('/fastify/orders/7/pay').timeout(3000).expect(201, { paid: '7' });
  });
});
