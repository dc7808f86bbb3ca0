import { Controller, Get, type INestApplication } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { SkipThrottle, Throttle, ThrottlerGuard, ThrottlerModule } from '@nestjs/throttler';
import request from 'supertest';
import { RateLimiterService, RedisPatternsModule } from 'nestjs-redis-patterns';
import { RedisPatternsThrottlerStorage } from 'nestjs-redis-patterns/adapters';
import { type BackendName, connectionOf, inspectKeys } from '../../support/backends';
import { uniquePrefix } from '../../support/redis-env';

@Controller('throttled')
class ThrottledController {
  @Get('default')
  byDefault() {
    return { ok: true };
  }

  @Throttle({ long: { limit: 2, ttl: 60_000 } })
  @SkipThrottle({ login: true })
  @Get('tight')
  tight() {
    return { ok: true };
  }

  @SkipThrottle({ long: true })
  @Get('login')
  login() {
    return { ok: true };
  }

  @SkipThrottle({ long: true, login: true })
  @Get('free')
  free() {
    return { ok: true };
  }
}

/** An application whose ThrottlerGuard counts in this module's storage, as the migration guide wires it. */
async function throttledApp(backend: BackendName, keyPrefix: string): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({
    imports: [
      RedisPatternsModule.forRoot({ connection: connectionOf(backend), keyPrefix }),
      ThrottlerModule.forRootAsync({
        inject: [RateLimiterService],
        useFactory: (limiter: RateLimiterService) => ({
          throttlers: [
            { name: 'long', ttl: 60_000, limit: 5 },
            { name: 'login', ttl: 10_000, limit: 3, blockDuration: 20_000 },
          ],
          storage: new RedisPatternsThrottlerStorage(limiter),
        }),
      }),
    ],
    controllers: [ThrottledController],
    providers: [{ provide: APP_GUARD, useClass: ThrottlerGuard }],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.listen(0, '127.0.0.1');
  return app;
}

describe.each<BackendName>(['standalone', 'cluster', 'memory'])('RedisPatternsThrottlerStorage under ThrottlerGuard on %s', (backend) => {
  let apps: INestApplication[];
  const prefix = uniquePrefix(`throttler-${backend}`);

  beforeAll(async () => {
    apps = [];
    for (let i = 0; i < (backend === 'memory' ? 1 : 2); i++) apps.push(await throttledApp(backend, prefix));
  });

  afterAll(async () => {
    for (const app of apps ?? []) await app.close();
  });

  const get = (path: string, i = 0) => request(apps[i % apps.length].getHttpServer()).get(path);

  it('admits exactly the smallest named limit under concurrency across instances, then 429', async () => {
    const responses = await Promise.all(Array.from({ length: 24 }, (_, i) => get('/throttled/default', i)));
    // 'login' allows 3 of the 5 'long' allows: the guard needs every named throttler to agree.
    expect(responses.filter((r) => r.status === 200)).toHaveLength(3);
    expect(responses.filter((r) => r.status === 429)).toHaveLength(21);
    const allowed = responses.filter((r) => r.status === 200).map((r) => Number(r.headers['x-ratelimit-remaining-login']));
    expect(allowed.sort()).toEqual([0, 1, 2]);
  });

  it('blocks for blockDuration after a denial: Retry-After is the block, not the window', async () => {
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await get('/throttled/login', i)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const denied = await get('/throttled/login');
    expect(denied.status).toBe(429);
    // 'login' allows 3 per 10 s and blocks 20 s: the wait is the block's. (A block shorter than the window ends
    // before it, as in the throttler's own storage: see throttler-storage-block.integration-spec.ts.)
    const retry = Number(denied.headers['retry-after-login']);
    expect(retry).toBeGreaterThan(15);
    expect(retry).toBeLessThanOrEqual(20);
  });

  it('keeps @Throttle overrides and @SkipThrottle working', async () => {
    const tight = [];
    for (let i = 0; i < 4; i++) tight.push((await get('/throttled/tight', i)).status);
    expect(tight).toEqual([200, 200, 429, 429]);
    for (let i = 0; i < 8; i++) expect((await get('/throttled/free', i)).status).toBe(200);
  });

  it('writes every key with a TTL, under the module key prefix', async () => {
    const keys = inspectKeys(backend, apps[0]);
    try {
      const written = await keys.keys(`${prefix}:rl:`);
      expect(written.length).toBeGreaterThan(0);
      expect(await keys.keysWithoutTtl(`${prefix}:rl:`)).toEqual([]);
    } finally {
      keys.close();
    }
  });
});
