import { Injectable, type INestApplicationContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Redis } from 'ioredis';
import {
  InjectRedis,
  RateLimiterService,
  RedisConnections,
  RedisPatternsModule,
  type RedisPatternsModuleOptions,
} from 'nestjs-redis-patterns';
import { NoRedisInMemoryModeError } from '../../../libs/redis-patterns/src/errors/no-redis-in-memory-mode.error';
import { RedisPatternsHealthIndicator } from 'nestjs-redis-patterns/health';
import { clearKeys } from 'nestjs-redis-patterns/testing';
import { RecordingLogger } from '../../contexts/recording-logger';

@Injectable()
class RawReports {
  constructor(@InjectRedis() readonly redis: Redis) {}
}

const policy = { algorithm: 'fixed-window', limit: 2, windowMs: 60_000 } as const;

async function start(options: RedisPatternsModuleOptions, providers: Array<new (...args: never[]) => unknown> = []) {
  const moduleRef = await Test.createTestingModule({ imports: [RedisPatternsModule.forRoot(options)], providers }).compile();
  return moduleRef.init();
}

describe('the module in memory (connection "memory://")', () => {
  const apps: INestApplicationContext[] = [];
  afterAll(() => Promise.all(apps.map((app) => app.close())));

  it('starts without a server and warns that it is for unit tests', async () => {
    const logger = new RecordingLogger();
    const app = await start({ connection: 'memory://', logger });
    apps.push(app);
    expect(app.get(RedisConnections).memory).toBeDefined();
    expect(logger.at('warn').join('\n')).toMatch(/memory.*unit tests/);
  });

  it('is reached through forRootAsync with REDIS_URL=memory:// as the connection', async () => {
    const previous = process.env.REDIS_URL;
    process.env.REDIS_URL = 'memory://';
    try {
      const moduleRef = await Test.createTestingModule({
        imports: [RedisPatternsModule.forRootAsync({ useFactory: () => ({ connection: process.env.REDIS_URL, keyPrefix: 'async' }) })],
      }).compile();
      const app = await moduleRef.init();
      apps.push(app);
      const decision = await app.get(RateLimiterService).consume('ada', policy);
      expect(decision).toMatchObject({ allowed: true, remaining: 1, source: 'memory' });
    } finally {
      process.env.REDIS_URL = previous;
    }
  });

  it('keeps each application to itself: two apps in one process share nothing', async () => {
    const [a, b] = await Promise.all([start({ connection: 'memory://' }), start({ connection: 'memory://' })]);
    apps.push(a, b);
    await a.get(RateLimiterService).consume('shared', policy, { cost: 2 });
    expect((await a.get(RateLimiterService).consume('shared', policy)).allowed).toBe(false);
    expect((await b.get(RateLimiterService).consume('shared', policy)).allowed).toBe(true);
  });

  it('clears the application keys with clearKeys, as on Redis', async () => {
    const app = await start({ connection: 'memory://', keyPrefix: 'clear-me' });
    apps.push(app);
    const limiter = app.get(RateLimiterService);
    await limiter.consume('ada', policy, { cost: 2 });
    const memory = app.get(RedisConnections).memory!;
    const written = memory.keys('clear-me:').length;
    expect(written).toBeGreaterThan(0);
    expect(await clearKeys(app)).toBe(written);
    expect(memory.keys('clear-me:')).toEqual([]);
    expect((await limiter.consume('ada', policy)).allowed).toBe(true);
  });

  it('reports health up, of kind memory', async () => {
    const app = await start({ connection: 'memory://' });
    apps.push(app);
    const health = await app.get(RedisPatternsHealthIndicator).check();
    expect(health.redis.status).toBe('up');
    expect(health.redis.connections.default).toMatchObject({ status: 'up', kind: 'memory', endpoint: 'memory://' });
  });

  it('starts with an injected raw client, which throws NoRedisInMemoryModeError naming startTestRedis when used', async () => {
    const app = await start({ connection: 'memory://' }, [RawReports]);
    apps.push(app);
    const reports = app.get(RawReports);
    expect(() => reports.redis.get('x')).toThrow(NoRedisInMemoryModeError);
    expect(() => reports.redis.get('x')).toThrow(/startTestRedis\(\)/);
    expect(() => app.get(RedisConnections).get()).toThrow(NoRedisInMemoryModeError);
  });
});
