import { Body, Controller, Get, type INestApplication, type LoggerService, Param, Post } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Redis } from 'ioredis';
import request from 'supertest';
import {
  CacheService,
  LockService,
  RateLimit,
  RateLimiterService,
  RedisConnections,
  RedisPatternsModule,
  RedisUnavailableError,
  WithLock,
} from 'nestjs-redis-patterns';
import { CappedList, Leaderboard, SessionStore, UniqueCounter } from 'nestjs-redis-patterns/structures';
import { StreamsService } from 'nestjs-redis-patterns/messaging';
import { RedisPatternsHealthIndicator } from 'nestjs-redis-patterns/health';
import { privateServer, type RedisServerProcess, uniquePrefix, waitFor } from '../../support/redis-env';

const TIMEOUT_MS = 300;
/** ioredis' own wording, which names options the user never set and reads as a broken Node stream. */
const IOREDIS_WORDING = /enableOfflineQueue|maxRetriesPerRequest|Stream isn't writeable|Command timed out|Connection is closed/;
const OUTAGE_BODY = {
  statusCode: 503,
  error: 'Service Unavailable',
  message: 'The service cannot reach its Redis server; retry later.',
  retryAfterMs: 1000,
};

/** A plain controller: no library decorator, so only the module's global filter can map what the services throw. */
@Controller('plain')
class PlainController {
  constructor(
    private readonly sessions: SessionStore,
    private readonly board: Leaderboard,
    private readonly visitors: UniqueCounter,
    private readonly feed: CappedList,
    private readonly streams: StreamsService,
  ) {}

  @Get('session/:id')
  session(@Param('id') id: string) {
    return this.sessions.get(id);
  }

  @Post('score')
  score(@Body() body: { member: string }) {
    return this.board.incr('weekly', body.member, 1);
  }

  @Get('visitors')
  async count() {
    return { count: await this.visitors.count('home') };
  }

  @Post('feed')
  async push(@Body() body: { item: string }) {
    return { length: await this.feed.push('news', body.item) };
  }

  @Post('orders')
  async order(@Body() body: { sku: string }) {
    return { id: await this.streams.add('orders', { sku: body.sku }) };
  }
}

@Controller('guarded')
class GuardedController {
  @Get('locked')
  @WithLock({ resource: 'report', ttlMs: 10_000 })
  locked() {
    return { ok: true };
  }

  @Get('limited')
  @RateLimit({ algorithm: 'fixed-window', limit: 1, windowMs: 60_000, key: () => 'one-budget' })
  limited() {
    return { ok: true };
  }
}

class CapturingLogger implements LoggerService {
  readonly lines: string[] = [];
  log(message: unknown): void {
    this.lines.push(String(message));
  }
  warn(message: unknown): void {
    this.lines.push(String(message));
  }
  error(message: unknown): void {
    this.lines.push(String(message));
  }
  matching(pattern: RegExp): string[] {
    return this.lines.filter((line) => pattern.test(line));
  }
}

async function startApp(url: string, logger: LoggerService): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({
    imports: [
      RedisPatternsModule.forRoot({ connection: url, keyPrefix: uniquePrefix('outage-answers'), commandTimeoutMs: TIMEOUT_MS, logger }),
    ],
    controllers: [PlainController, GuardedController],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.listen(0, '127.0.0.1');
  return app;
}

/** The answer of every plain endpoint, in order. */
function callPlainEndpoints(app: INestApplication): Promise<request.Response[]> {
  const http = () => request(app.getHttpServer());
  return Promise.all([
    http().get('/plain/session/s1'),
    http().post('/plain/score').send({ member: 'ada' }),
    http().get('/plain/visitors'),
    http().post('/plain/feed').send({ item: 'hello' }),
    http().post('/plain/orders').send({ sku: 'A-1' }),
  ]);
}

function expectLibraryAnswer(response: request.Response, status: number): void {
  expect(response.status).toBe(status);
  expect(Object.keys(response.body as object).sort()).toEqual(['error', 'message', 'retryAfterMs', 'statusCode']);
  expect(response.body).toMatchObject({ statusCode: status });
  const retryAfterMs = (response.body as { retryAfterMs: number }).retryAfterMs;
  expect(retryAfterMs).toBeGreaterThan(0);
  expect(response.headers['retry-after']).toBe(String(Math.max(1, Math.ceil(retryAfterMs / 1000))));
}

describe('outages answered in the library words, over real HTTP (a server of its own, then stopped)', () => {
  let server: RedisServerProcess;
  let app: INestApplication;
  const logger = new CapturingLogger();

  beforeAll(async () => {
    server = await privateServer();
    app = await startApp(server.url, logger);
  });

  afterAll(async () => {
    await app?.close();
    await server?.stop();
  });

  it('while Redis is up: the plain endpoints work, and 409 and 429 share one body shape with Retry-After', async () => {
    expect((await callPlainEndpoints(app)).map((r) => r.status)).toEqual([200, 201, 200, 201, 201]);
    const lock = await app.get(LockService).acquire('report', { ttlMs: 10_000 });
    try {
      const contention = await request(app.getHttpServer()).get('/guarded/locked');
      expectLibraryAnswer(contention, 409);
      expect(contention.body).toMatchObject({ error: 'Conflict' });
    } finally {
      await lock.release();
    }
    expect((await request(app.getHttpServer()).get('/guarded/limited')).status).toBe(200);
    const limited = await request(app.getHttpServer()).get('/guarded/limited');
    expectLibraryAnswer(limited, 429);
    expect(limited.body).toMatchObject({ error: 'Too Many Requests' });
  });

  describe('once the server is stopped', () => {
    beforeAll(async () => {
      const client = app.get(RedisConnections).get() as Redis;
      await server.stop();
      await waitFor(
        () => client.status !== 'ready',
        5000,
        () => `the client to notice the stopped server (${client.status})`,
      );
    });

    it('sessions, leaderboards, unique counters, capped lists and StreamsService.add answer 503 with Retry-After from a plain controller', async () => {
      const answers = await callPlainEndpoints(app);
      for (const answer of answers) {
        expectLibraryAnswer(answer, 503);
        expect(answer.body).toEqual(OUTAGE_BODY);
        expect(answer.headers['retry-after']).toBe('1');
      }
    });

    it('a decorated handler failing closed answers 503 in the same shape', async () => {
      const answer = await request(app.getHttpServer()).get('/guarded/locked');
      expectLibraryAnswer(answer, 503);
      expect(answer.body).toMatchObject({ error: 'Service Unavailable', retryAfterMs: 1000 });
    });

    it('the services reject with RedisUnavailableError naming the connection, never an ioredis option; the original is its cause', async () => {
      const error = await app
        .get(SessionStore)
        .get('s1')
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RedisUnavailableError);
      const unavailable = error as RedisUnavailableError;
      expect(unavailable).toMatchObject({ code: 'REDIS_UNAVAILABLE', connection: 'default', reason: 'disconnected', mayHaveRun: false });
      expect(unavailable.message).toBe(
        'Redis connection "default" is disconnected and reconnecting; commands fail at once until it is back.',
      );
      expect((unavailable.cause as Error).message).toMatch(IOREDIS_WORDING);
      await expect(app.get(StreamsService).add('orders', { sku: 'A-2' })).rejects.toThrow(RedisUnavailableError);
    });

    it('cache, rate-limit and health report the outage in the library wording', async () => {
      await expect(app.get(CacheService).get('greeting')).resolves.toBeUndefined();
      expect((await app.get(RateLimiterService).consume('anyone', { algorithm: 'fixed-window', limit: 5, windowMs: 1000 })).allowed).toBe(
        true,
      );
      const health = await app.get(RedisPatternsHealthIndicator).check('redis');
      expect(health.redis.connections.default.error).toMatch(/^Redis connection "default" is disconnected/);
      const cacheLines = logger.matching(/^Cache /);
      const limiterLines = logger.matching(/^Rate limiter /);
      expect(cacheLines.length).toBeGreaterThan(0);
      expect(limiterLines.length).toBeGreaterThan(0);
      for (const line of [...cacheLines, ...limiterLines]) {
        expect(line).toMatch(/Redis connection "default" is disconnected/);
        expect(line).not.toMatch(IOREDIS_WORDING);
      }
    });

    it("the Streams consumer's outage line is about the connection, not the stream", async () => {
      const handle = app.get(StreamsService).consume({ stream: 'orders', group: 'billing', handler: async () => undefined });
      try {
        await waitFor(
          () => logger.matching(/^Consumer .*"billing"/).length > 0,
          5000,
          () => `a consumer log line (got ${JSON.stringify(logger.lines.slice(-3))})`,
        );
        const [line] = logger.matching(/^Consumer .*"billing"/);
        expect(line).toMatch(/Redis connection "default" is disconnected/);
        expect(line).not.toMatch(IOREDIS_WORDING);
      } finally {
        await handle.stop();
      }
    });
  });
});

describe('a frozen server (SIGSTOP): the answer names the deadline, not an ioredis option', () => {
  let server: RedisServerProcess;
  let app: INestApplication;

  beforeAll(async () => {
    server = await privateServer();
    app = await startApp(server.url, new CapturingLogger());
    await app.get(SessionStore).get('warm-up');
    server.freeze();
  });

  afterAll(async () => {
    server?.resume();
    await app?.close();
    await server?.stop();
  });

  it('rejects within the deadline with RedisUnavailableError, and answers 503 over HTTP', async () => {
    const started = Date.now();
    const error = await app
      .get(Leaderboard)
      .incr('weekly', 'ada')
      .catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 400);
    expect(error).toBeInstanceOf(RedisUnavailableError);
    const unavailable = error as RedisUnavailableError;
    expect(unavailable.mayHaveRun).toBe(true);
    expect(unavailable.message).toMatch(
      new RegExp(
        `^Redis connection "default" (did not answer within ${TIMEOUT_MS} ms|dropped before the server answered .*${TIMEOUT_MS} ms)`,
      ),
    );
    expect(unavailable.message).not.toMatch(IOREDIS_WORDING);
    const answer = await request(app.getHttpServer()).post('/plain/feed').send({ item: 'x' });
    expect(answer.status).toBe(503);
    expect(answer.body).toEqual(OUTAGE_BODY);
    expect(answer.headers['retry-after']).toBe('1');
  });
});
