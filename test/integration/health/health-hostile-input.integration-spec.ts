import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { LockService, RedisPatternsModule } from 'nestjs-redis-patterns';
import { RedisHealthCheckError, RedisPatternsHealthIndicator } from 'nestjs-redis-patterns/health';
import { type AclUser, createAclUser } from '../connections/acl-user';
import { uniquePrefix, waitFor } from '../../support/redis-env';

async function startApp(url: string, label: string): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({
    imports: [RedisPatternsModule.forRoot({ connection: url, keyPrefix: uniquePrefix(label) })],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.init();
  return app;
}

describe('RedisPatternsHealthIndicator when Redis refuses what the patterns need', () => {
  let user: AclUser;
  let app: INestApplication;

  beforeAll(async () => {
    // Scripting is taken away after startup, as an operator tightening the ACL of a running application would.
    user = await createAclUser('health-noscript', ['~*', '&*', '+@all']);
    app = await startApp(user.url, 'health-refused');
    await user.change(['-@scripting']);
  });
  afterAll(async () => {
    await app?.close();
    await user?.remove();
  });

  it('reports the connection down with the refusal (NOPERM, EVALSHA) although PING works', async () => {
    const health = app.get(RedisPatternsHealthIndicator);
    expect((await health.check('redis')).redis.status).toBe('up');
    await expect(app.get(LockService).tryAcquire('health-probe')).rejects.toThrow(/NOPERM/);
    // The check whose PING answered (on a loaded machine a probe may miss its deadline or meet a reconnect: then
    // health reports the connection down for that reason, which is not what this test is about).
    let result = await health.check('redis');
    await waitFor(
      async () => (result = await health.check('redis')).redis.connections.default.latencyMs !== undefined,
      10_000,
      () => `a health check whose PING answered (last: ${JSON.stringify(result)})`,
    );
    expect(result.redis.status).toBe('down');
    expect(result.redis.connections.default.status).toBe('down');
    expect(result.redis.connections.default.error).toMatch(/EVALSHA/);
    expect(result.redis.connections.default.error).toMatch(/NOPERM/);
    expect(result.redis.connections.default.latencyMs).toBeGreaterThanOrEqual(0);
    const thrown = await health.isHealthy('redis').catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(RedisHealthCheckError);
  });

  it('with details: false, reports statuses only: no endpoint, role, memory nor the refusal text', async () => {
    const summary = await app.get(RedisPatternsHealthIndicator).check('redis', { details: false });
    expect(summary).toEqual({ redis: { status: 'down', connections: { default: { status: 'down' } } } });
  });
});

describe('RedisPatternsHealthIndicator with a user that may not run INFO', () => {
  let user: AclUser;
  let app: INestApplication;

  beforeAll(async () => {
    user = await createAclUser('health-noinfo', ['~*', '&*', '+@all', '-info']);
    app = await startApp(user.url, 'health-noinfo');
  });
  afterAll(async () => {
    await app?.close();
    await user?.remove();
  });

  it('reports the connection up, with a note that INFO is unavailable and no made-up memory figures', async () => {
    const health = app.get(RedisPatternsHealthIndicator);
    const result = await health.check('redis', { maxMemoryRatio: 0.5 });
    expect(result.redis.status).toBe('up');
    const main = result.redis.connections.default;
    expect(main).toMatchObject({
      status: 'up',
      kind: 'standalone',
      role: 'unknown',
      note: expect.stringMatching(/info unavailable.*NOPERM/i),
    });
    expect(main.usedMemory).toBeUndefined();
    expect(main.error).toBeUndefined();
    await expect(health.isHealthy('redis')).resolves.toHaveProperty(['redis', 'status'], 'up');
  });

  it('with details: false, returns the statuses only', async () => {
    const summary = await app.get(RedisPatternsHealthIndicator).check('redis', { details: false });
    expect(summary).toEqual({ redis: { status: 'up', connections: { default: { status: 'up' } } } });
  });

  it('rejects a details option that is not a boolean, naming it', async () => {
    await expect(app.get(RedisPatternsHealthIndicator).check('redis', { details: 'no' as unknown as boolean })).rejects.toThrow(
      /options\.details/,
    );
  });
});
