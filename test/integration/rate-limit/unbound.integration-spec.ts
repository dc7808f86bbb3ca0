import { Controller, Get, Injectable, Module, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { RateLimit, RedisPatternsModule, SkipRateLimit } from 'nestjs-redis-patterns';
import { RedisPatternsNotBoundError } from '../../../libs/redis-patterns/src/errors/redis-patterns-not-bound.error';
import { connectionFor, uniquePrefix } from '../../support/redis-env';

@Controller('search')
class SearchController {
  @RateLimit({ algorithm: 'fixed-window', limit: 2, windowMs: 60_000 })
  @Get()
  search() {
    return { ok: true };
  }
}

@Controller('reports')
@RateLimit({ algorithm: 'fixed-window', limit: 2, windowMs: 60_000 })
class ReportsController {
  @Get()
  list() {
    return { ok: true };
  }

  @SkipRateLimit()
  @Get('free')
  free() {
    return { ok: true };
  }
}

@Injectable()
class Mailer {
  @RateLimit({ algorithm: 'gcra', limit: 1, periodMs: 60_000 })
  async send(): Promise<string> {
    return 'sent';
  }
}

/** Startup of an application made of `module` only: the error it fails with (none: undefined). */
async function startupError(module: Type<unknown>): Promise<unknown> {
  try {
    const moduleRef = await Test.createTestingModule({ imports: [module] }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    try {
      await app.init();
    } finally {
      await app.close().catch(() => undefined);
    }
    return undefined;
  } catch (error) {
    return error;
  }
}

describe('@RateLimit without RedisPatternsModule', () => {
  it('fails startup naming the controller and handler of a method-level @RateLimit', async () => {
    @Module({ controllers: [SearchController] })
    class Unbound {}
    const error = await startupError(Unbound);
    expect(error).toBeInstanceOf(RedisPatternsNotBoundError);
    expect(error).toMatchObject({ className: 'SearchController', methodName: 'search' });
    expect((error as Error).message).toMatch(
      /^SearchController\.search uses a redis-patterns decorator, but RedisPatternsModule is not imported/,
    );
  });

  it('fails startup naming the controller of a class-level @RateLimit', async () => {
    @Module({ controllers: [ReportsController] })
    class Unbound {}
    const error = await startupError(Unbound);
    expect(error).toBeInstanceOf(RedisPatternsNotBoundError);
    expect(error).toMatchObject({ className: 'ReportsController', methodName: undefined });
  });

  it('fails startup naming the provider method of a @RateLimit on a provider', async () => {
    @Module({ providers: [Mailer] })
    class Unbound {}
    const error = await startupError(Unbound);
    expect(error).toBeInstanceOf(RedisPatternsNotBoundError);
    expect(error).toMatchObject({ className: 'Mailer', methodName: 'send' });
  });

  it('fails NestFactory.create with the same error (abortOnError: false)', async () => {
    @Module({ controllers: [SearchController] })
    class Unbound {}
    await expect(NestFactory.create(Unbound, { logger: false, abortOnError: false })).rejects.toBeInstanceOf(RedisPatternsNotBoundError);
  });

  it('fails startup when RedisPatternsModule is not global and the controller’s module does not import it', async () => {
    @Module({ controllers: [SearchController] })
    class Feature {}
    @Module({
      imports: [RedisPatternsModule.forRoot({ connection: 'memory://', isGlobal: false }), Feature],
    })
    class App {}
    const error = await startupError(App);
    expect(error).toBeInstanceOf(RedisPatternsNotBoundError);
    expect((error as Error).message).toMatch(/isGlobal: false/);
  });
});

describe('@RateLimit with RedisPatternsModule', () => {
  it('still limits the same controllers', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [RedisPatternsModule.forRoot({ connection: connectionFor('standalone'), keyPrefix: uniquePrefix('bound') })],
      controllers: [SearchController, ReportsController],
      providers: [Mailer],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    try {
      const server = app.getHttpServer();
      for (const path of ['/search', '/reports']) {
        await request(server).get(path).expect(200);
        await request(server).get(path).expect(200);
        await request(server).get(path).expect(429);
      }
      for (let i = 0; i < 3; i++) await request(server).get('/reports/free').expect(200);
      await expect(app.get(Mailer).send()).resolves.toBe('sent');
    } finally {
      await app.close();
    }
  });
});
