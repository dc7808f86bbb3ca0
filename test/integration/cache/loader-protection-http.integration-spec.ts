import { Controller, Get, type INestApplication, Param } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { Cacheable, RedisPatternsModule } from 'nestjs-redis-patterns';
import { inspectKeys, type KeyInspector } from '../../support/backends';
import { connectionFor, uniquePrefix, waitFor } from '../../support/redis-env';

/** What the handlers' key functions read of Express' and Fastify's request (they run before pipes). */
interface RouteRequest {
  readonly params: { readonly id: string };
  readonly query: Record<string, unknown>;
}

@Controller('prices')
class PricesController {
  sourceDown = false;
  loads = 0;
  reports = 0;
  private release: () => void = () => undefined;

  @Get('quote/:id')
  @Cacheable({ key: (request: RouteRequest) => `quote:${request.params.id}`, ttlMs: 1, graceMs: 60_000 })
  async quote(@Param('id') id: string): Promise<{ id: string; load: number }> {
    this.loads++;
    if (this.sourceDown) throw new Error('pricing source down');
    return { id, load: this.loads };
  }

  @Get('slow/:id')
  @Cacheable({ key: (request: RouteRequest) => `slow:${request.params.id}`, hardTimeoutMs: 100 })
  slow(@Param('id') id: string): Promise<{ id: string }> {
    return new Promise((resolve) => (this.release = () => resolve({ id })));
  }

  @Get('report')
  @Cacheable({ key: 'report', ttlMs: 60_000, forceFresh: (request: RouteRequest) => request.query.refresh === '1' })
  async report(): Promise<{ run: number }> {
    this.reports++;
    return { run: this.reports };
  }

  finishSlow(): void {
    this.release();
  }
}

/** One request's bound: a hang fails the test, and three of them fit in its 30 s even on the loaded server matrix. */
const REQUEST_TIMEOUT_MS = 8000;

describe.each(['express', 'fastify'] as const)('a cached handler that survives its source, over HTTP on %s', (platform) => {
  let app: INestApplication;
  let inspect: KeyInspector;
  const prefix = uniquePrefix(`cache-grace-http-${platform}`);
  const http = () => request(app.getHttpServer());

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        // Started once its connection is ready: these requests are about the loader, not a cache failing open at startup.
        RedisPatternsModule.forRoot({
          connection: connectionFor('standalone'),
          keyPrefix: prefix,
          connectionStartup: 'wait',
          cache: { graceRetryMs: 60_000 },
        }),
      ],
      controllers: [PricesController],
    }).compile();
    app =
      platform === 'fastify'
        ? moduleRef.createNestApplication(new FastifyAdapter(), { logger: false })
        : moduleRef.createNestApplication({ logger: false });
    await app.init();
    if (platform === 'fastify') await (app.getHttpAdapter().getInstance() as { ready(): Promise<unknown> }).ready();
    inspect = inspectKeys('standalone', app);
  });

  afterAll(async () => {
    app?.get(PricesController).finishSlow();
    await app?.close();
    inspect?.close();
  });

  it('answers from grace, marked STALE, when the handler throws after the entry expired', async () => {
    const first = await http().get('/prices/quote/7').timeout(REQUEST_TIMEOUT_MS).expect(200);
    expect(first.headers['x-cache']).toBe('MISS');
    const [key] = (await inspect.keys(prefix)).filter((name) => name.includes('quote'));
    await waitFor(
      async () => (await inspect.pttl(key)) <= 60_000,
      2000,
      () => 'the quote past its fresh TTL',
    );
    const controller = app.get(PricesController);
    controller.sourceDown = true;
    const graced = await http().get('/prices/quote/7').timeout(REQUEST_TIMEOUT_MS).expect(200);
    expect(graced.headers['x-cache']).toBe('STALE');
    expect(graced.body).toEqual(first.body);
    // Another id has no value to fall back on: the handler's error is the answer.
    await http().get('/prices/quote/8').timeout(REQUEST_TIMEOUT_MS).expect(500);
    expect(controller.loads).toBe(3);
  });

  it('answers 504 at the hard timeout when there is nothing to fall back on', async () => {
    const started = performance.now();
    const timedOut = await http().get('/prices/slow/1').timeout(REQUEST_TIMEOUT_MS).expect(504);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(timedOut.body).toMatchObject({ statusCode: 504, error: 'Gateway Timeout' });
    app.get(PricesController).finishSlow();
  });

  it('refreshes when forceFresh says so for the call, and serves the refreshed entry after', async () => {
    const runs = async (path: string) => {
      const response = await http().get(path).timeout(REQUEST_TIMEOUT_MS).expect(200);
      return [response.headers['x-cache'], (response.body as { run: number }).run];
    };
    expect(await runs('/prices/report')).toEqual(['MISS', 1]);
    expect(await runs('/prices/report')).toEqual(['HIT', 1]);
    expect(await runs('/prices/report?refresh=1')).toEqual(['MISS', 2]);
    expect(await runs('/prices/report')).toEqual(['HIT', 2]);
  });
});
