import { Controller, Get, type INestApplication, Injectable, Scope } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { Cacheable, RedisPatternsModule } from 'nestjs-redis-patterns';
import { RedisPatternsNotBoundError } from '../../libs/redis-patterns/src/errors/redis-patterns-not-bound.error';
import { connectionFor, uniquePrefix } from '../support/redis-env';

@Injectable()
class PriceService {
  loads = 0;

  @Cacheable({ key: 'price', ttl: 60 })
  async price(): Promise<number> {
    return ++this.loads;
  }
}

@Injectable({ scope: Scope.REQUEST })
class RequestScopedPrices {
  @Cacheable({ key: 'scoped-price', ttl: 60 })
  async price(): Promise<string> {
    return 'from the request-scoped provider';
  }
}

@Controller('scoped')
class ScopedController {
  constructor(private readonly prices: RequestScopedPrices) {}

  @Get()
  async get(): Promise<{ price: string }> {
    return { price: await this.prices.price() };
  }
}

async function appWithModule(label: string, extra: { controllers?: unknown[]; providers?: unknown[] }): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({
    imports: [RedisPatternsModule.forRoot({ connection: connectionFor('standalone'), keyPrefix: uniquePrefix(label) })],
    controllers: (extra.controllers ?? []) as never[],
    providers: (extra.providers ?? []) as never[],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.init();
  return app;
}

describe('decorators bind to the application that owns the instance', () => {
  let running: INestApplication;

  beforeAll(async () => {
    running = await appWithModule('binding', { controllers: [ScopedController], providers: [PriceService, RequestScopedPrices] });
  });

  afterAll(() => running?.close());

  it('fails startup of an application without the module, even while another one with the module runs', async () => {
    await expect(running.get(PriceService).price()).resolves.toBe(1);
    // Nest creates the decorator's interceptor with the class: without the module it cannot, and names the method.
    const alone = Test.createTestingModule({ providers: [PriceService] }).compile();
    await expect(alone).rejects.toThrow(RedisPatternsNotBoundError);
    await expect(alone).rejects.toThrow(/PriceService\.price uses a redis-patterns decorator, but RedisPatternsModule is not imported/);
    // Never served the other application's cached value: an instance made outside any application is refused.
    await expect(new PriceService().price()).rejects.toThrow(RedisPatternsNotBoundError);
  });

  it('binds a request-scoped provider, created per request, to its own application', async () => {
    const response = await request(running.getHttpServer()).get('/scoped').timeout(3000).expect(200);
    expect(response.body).toEqual({ price: 'from the request-scoped provider' });
  });
});
