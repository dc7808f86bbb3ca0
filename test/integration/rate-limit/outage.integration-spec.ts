import { Controller, Get, type INestApplication } from '@nestjs/common';
import { Redis } from 'ioredis';
import request from 'supertest';
import { RateLimit, type RateLimitPolicy, RateLimiterService, RateLimitDeniedError } from 'nestjs-redis-patterns';
import { privateServer, type RedisServerProcess, uniquePrefix, waitFor } from '../../support/redis-env';
import { startApp } from './rate-limit-app';

const TIMEOUT_MS = 300;
const policy: RateLimitPolicy = { algorithm: 'fixed-window', limit: 3, windowMs: 60_000 };

@Controller('outage')
class OutageController {
  @RateLimit({ ...policy, failOpen: false })
  @Get('closed')
  closed() {
    return { ok: true };
  }

  @RateLimit(policy)
  @Get('open')
  open() {
    return { ok: true };
  }
}

async function timed<T>(work: () => Promise<T>): Promise<{ result: T | unknown; ms: number }> {
  const started = Date.now();
  const result = await work().catch((error: unknown) => error);
  return { result, ms: Date.now() - started };
}

// A private server: freezing the shared one would disturb every other spec.
describe('rate limiting while Redis is frozen (SIGSTOP)', () => {
  let server: RedisServerProcess;
  let app: INestApplication;
  let limiter: RateLimiterService;
  let admin: Redis;
  const prefix = uniquePrefix('rl-outage');

  beforeAll(async () => {
    server = await privateServer();
    admin = new Redis(server.url, { maxRetriesPerRequest: 1 });
    app = await startApp(
      { connection: server.url, keyPrefix: prefix, commandTimeoutMs: TIMEOUT_MS },
      { controllers: [OutageController], http: true },
    );
    limiter = app.get(RateLimiterService);
    // Spend one unit while Redis is up: the count Redis holds before the outage.
    expect((await limiter.consume('counted', policy)).remaining).toBe(2);
    server.freeze();
  });

  afterAll(async () => {
    server.resume();
    await app?.close();
    admin.disconnect();
    await server?.stop();
  });

  it('fails open by default: allowed, within the command timeout, counted', async () => {
    const { result, ms } = await timed(() => limiter.consume('counted', policy));
    expect(result).toMatchObject({ allowed: true, source: 'fail-open' });
    expect(ms).toBeLessThan(TIMEOUT_MS + 400);
    // The connection is known down now: later calls are decided at once, and never sent to the frozen server.
    const burst = await Promise.all(Array.from({ length: 20 }, () => timed(() => limiter.consume('counted', policy))));
    expect(burst.every(({ result }) => (result as { allowed: boolean }).allowed)).toBe(true);
    expect(Math.max(...burst.map(({ ms }) => ms))).toBeLessThan(TIMEOUT_MS + 400);
    expect(limiter.outageStats().failedOpen).toBeGreaterThanOrEqual(21);
  });

  it('fails closed when asked: RateLimitDeniedError, and 503 over HTTP', async () => {
    const { result, ms } = await timed(() => limiter.consume('closed', policy, { failOpen: false }));
    expect(result).toBeInstanceOf(RateLimitDeniedError);
    expect(result).toMatchObject({ reason: 'unavailable', code: 'RATE_LIMIT_DENIED', retryAfterMs: 1000 });
    expect(ms).toBeLessThan(TIMEOUT_MS + 400);
    const closed = await request(app.getHttpServer()).get('/outage/closed');
    expect(closed.status).toBe(503);
    expect(closed.headers['retry-after']).toBe('1');
    const open = await request(app.getHttpServer()).get('/outage/open');
    expect(open.status).toBe(200);
    expect(open.headers['ratelimit-policy']).toBe('"default";q=3;w=60');
    expect(open.headers['ratelimit']).toBeUndefined();
  });

  it('the in-memory fallback enforces the same policy per instance', async () => {
    const decisions = await Promise.all(Array.from({ length: 10 }, () => limiter.consume('memory', policy, { inMemoryFallback: true })));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(3);
    expect(decisions.every((d) => d.source === 'memory')).toBe(true);
    expect(decisions.find((d) => !d.allowed)!.retryAfterMs).toBeGreaterThan(0);
  });

  it('returns to Redis when it answers again, and replays nothing decided during the outage', async () => {
    server.resume();
    await waitFor(
      async () => (await limiter.consume('probe', policy)).source === 'redis',
      5000,
      () => 'Redis-backed decisions',
    );
    // Redis holds the unit spent before the outage plus at most the one call in flight when it froze; the 20 calls
    // decided while the connection was known down never reached it.
    const count = Number(await admin.get(`${prefix}:rl:{counted}:fw:3:60000`));
    expect(count).toBeGreaterThanOrEqual(1);
    expect(count).toBeLessThanOrEqual(2);
    // Nothing the in-memory fallback counted was copied to Redis.
    expect(await admin.exists(`${prefix}:rl:{memory}:fw:3:60000`)).toBe(0);
    expect((await limiter.consume('memory', policy)).remaining).toBe(2);
  });
});
