import { Controller, Get, type INestApplication, type LoggerService, Param } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { CacheService, Cacheable, RedisPatternsModule } from 'nestjs-redis-patterns';
import { privateServer, type RedisServerProcess, uniquePrefix, waitFor } from '../../support/redis-env';

class CapturingLogger implements LoggerService {
  readonly warnings: string[] = [];
  log(): void {}
  error(message: unknown): void {
    this.warnings.push(String(message));
  }
  warn(message: unknown): void {
    this.warnings.push(String(message));
  }
  debug(): void {}
}

@Controller('items')
class ItemsController {
  served = 0;

  @Get(':id')
  @Cacheable({ key: (id: string) => `item:${id}`, ttl: 30 })
  async item(@Param('id') id: string): Promise<{ id: string; n: number }> {
    return { id, n: ++this.served };
  }
}

describe('cache fails open when Redis is frozen (SIGSTOP) and resumes after SIGCONT', () => {
  let server: RedisServerProcess;
  let app: INestApplication;
  let cache: CacheService;
  const logger = new CapturingLogger();

  beforeAll(async () => {
    server = await privateServer();
    const moduleRef = await Test.createTestingModule({
      imports: [
        RedisPatternsModule.forRoot({
          connection: server.url,
          keyPrefix: uniquePrefix('cache-fail'),
          commandTimeoutMs: 200,
          logger,
        }),
      ],
      controllers: [ItemsController],
    }).compile();
    app = moduleRef.createNestApplication();
    await app.init();
    cache = app.get(CacheService);
  });

  afterAll(async () => {
    server?.resume();
    await app?.close();
    await server?.stop();
  });

  it('serves every call from the source within the command timeout, logs rate-limited, counts, then recovers', async () => {
    let calls = 0;
    const loader = async () => ++calls;
    expect(await cache.wrap('k', loader)).toBe(1);
    expect(await cache.wrap('k', loader)).toBe(1);

    const http = request(app.getHttpServer());
    expect((await http.get('/items/1').expect(200)).headers['x-cache']).toBe('MISS');
    expect((await http.get('/items/1').expect(200)).headers['x-cache']).toBe('HIT');

    server.freeze();
    try {
      // HTTP: every request answered 200 by the handler (no 5xx because of the cache).
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => request(app.getHttpServer()).get(`/items/${i % 4}`)));
      expect(answers.map((a) => a.status)).toEqual(new Array(20).fill(200));
      expect(answers.every((a) => a.headers['x-cache'] === 'MISS')).toBe(true);
      const started = Date.now();
      const results = await Promise.all(Array.from({ length: 40 }, (_, i) => cache.wrap(`frozen${i}`, async () => `v${i}`)));
      expect(results).toEqual(Array.from({ length: 40 }, (_, i) => `v${i}`));
      // Generous bound: every call gives up within the 200 ms deadline (a read, and at most a write, each).
      expect(Date.now() - started).toBeLessThan(3000);
      expect(await cache.get('k')).toBeUndefined();
      expect(await cache.set('k', 'x')).toBe(false);
      expect(await cache.del('k')).toBe(0);
      expect(await cache.invalidateTags('t')).toBe(0);
      // Sequential calls while the connection is known down do not pay the timeout each.
      const sequentialStart = Date.now();
      for (let i = 0; i < 20; i++) expect(await cache.wrap('k', loader)).toBeGreaterThan(1);
      expect(Date.now() - sequentialStart).toBeLessThan(20 * 200);
      const stats = cache.stats();
      expect(stats.errors).toBeGreaterThan(0);
      expect(stats.bypassed).toBeGreaterThan(0);
      // Rate-limited: far fewer log lines than failures.
      const lines = logger.warnings.filter((line) => line.includes('fail-open'));
      expect(lines.length).toBeGreaterThanOrEqual(1);
      expect(lines.length).toBeLessThanOrEqual(2);
      expect(stats.errors).toBeGreaterThan(lines.length * 5);
    } finally {
      server.resume();
    }

    // No restart: once Redis answers again, caching resumes.
    await waitFor(
      async () => (await cache.set('back', 'yes')) === true,
      10_000,
      () => 'the cache to write again',
    );
    expect(await cache.get('back')).toBe('yes');
    const n = calls;
    expect(await cache.wrap('k2', loader)).toBe(n + 1);
    expect(await cache.wrap('k2', loader)).toBe(n + 1);
  });
});
