import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Redis } from 'ioredis';
import { RedisPatternsModule } from 'nestjs-redis-patterns';
import { RedisHealthCheckError, RedisPatternsHealthIndicator } from 'nestjs-redis-patterns/health';
import { startApp, STRUCTURE_TOPOLOGIES } from '../structures/structures-app';
import { connectionFor, privateServer, type RedisServerProcess, uniquePrefix } from '../../support/redis-env';

describe.each(STRUCTURE_TOPOLOGIES)('RedisPatternsHealthIndicator on %s', (topology) => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await startApp(topology, uniquePrefix(`health-${topology}`));
  });
  afterAll(() => app?.close());

  it('reports each connection up with PING latency, role and memory, in the terminus shape', async () => {
    const result = await app.get(RedisPatternsHealthIndicator).check('redis');
    expect(result.redis.status).toBe('up');
    const main = result.redis.connections.default;
    expect(main).toMatchObject({ status: 'up', kind: topology });
    expect(main.latencyMs).toBeGreaterThanOrEqual(0);
    expect(main.latencyMs).toBeLessThan(1000);
    expect(main.usedMemory).toBeGreaterThan(0);
    expect(main.maxmemory).toBeGreaterThanOrEqual(0);
    if (topology === 'cluster') {
      expect(main.role).toBe('cluster');
      expect(main.nodes).toHaveLength(3);
      expect(main.nodes!.every((n) => n.role === 'master')).toBe(true);
    } else {
      expect(main.role).toBe('master');
    }
    await expect(app.get(RedisPatternsHealthIndicator).isHealthy('cache-redis')).resolves.toHaveProperty(['cache-redis', 'status'], 'up');
  });
});

describe('RedisPatternsHealthIndicator with a failing connection', () => {
  let server: RedisServerProcess;
  let app: INestApplication;

  beforeAll(async () => {
    server = await privateServer();
    const moduleRef = await Test.createTestingModule({
      imports: [
        RedisPatternsModule.forRoot({
          connection: connectionFor('standalone'),
          connections: { side: server.url },
          keyPrefix: uniquePrefix('health-down'),
        }),
      ],
    }).compile();
    app = moduleRef.createNestApplication();
    await app.init();
  });
  afterAll(async () => {
    await app?.close();
    await server.stop();
  });

  it('compares used memory with maxmemory and can report a connection over a threshold as down', async () => {
    const admin = new Redis(server.url);
    await admin.config('SET', 'maxmemory', String(64 * 1024 * 1024));
    admin.disconnect();
    const health = app.get(RedisPatternsHealthIndicator);
    const relaxed = await health.check('redis', { connections: ['side'] });
    const side = relaxed.redis.connections.side;
    expect(side.maxmemory).toBe(64 * 1024 * 1024);
    expect(side.memoryRatio).toBeGreaterThan(0);
    expect(side.memoryRatio).toBeLessThan(1);
    const strict = await health.check('redis', { connections: ['side'], maxMemoryRatio: 0.0001 });
    expect(strict.redis).toMatchObject({
      status: 'down',
      connections: { side: { status: 'down', error: expect.stringContaining('maxmemory') } },
    });
  });

  it('reports a dead connection down (without throwing from check) and throws a terminus-style error from isHealthy', async () => {
    await server.kill();
    const health = app.get(RedisPatternsHealthIndicator);
    const started = Date.now();
    const result = await health.check('redis', { timeoutMs: 500 });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(result.redis.status).toBe('down');
    expect(result.redis.connections.default.status).toBe('up');
    expect(result.redis.connections.side).toMatchObject({ status: 'down', error: expect.any(String) });
    const error = await health.isHealthy('redis').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RedisHealthCheckError);
    expect((error as RedisHealthCheckError).isHealthCheckError).toBe(true);
    expect((error as RedisHealthCheckError).causes).toHaveProperty(['redis', 'status'], 'down');
    await server.restart();
  });
});
