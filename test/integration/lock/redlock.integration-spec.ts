import { performance } from 'node:perf_hooks';
import type { INestApplication } from '@nestjs/common';
import { Redis } from 'ioredis';
import { LockNotAcquiredError, LockService } from 'nestjs-redis-patterns';
import { privateServer, type RedisServerProcess, uniquePrefix } from '../../support/redis-env';
import { startLockApp } from './lock-test-app';

describe('Redlock quorum over three independent servers', () => {
  const prefix = uniquePrefix('redlock');
  const key = (resource: string) => `${prefix}:lock:{${resource}}`;
  let servers: RedisServerProcess[];
  let raw: Redis[];
  let apps: INestApplication[];
  let locks: LockService;
  let rival: LockService;

  const start = () =>
    startLockApp({
      connection: servers[0].url,
      connections: { a: servers[0].url, b: servers[1].url, c: servers[2].url },
      keyPrefix: prefix,
      commandTimeoutMs: 300,
      shutdownTimeoutMs: 200,
      lock: { redlock: { connections: ['a', 'b', 'c'], nodeTimeoutMs: 150 } },
    });

  beforeAll(async () => {
    servers = await Promise.all([privateServer(), privateServer(), privateServer()]);
    raw = servers.map((s) => new Redis(s.url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, retryStrategy: () => null }));
    apps = [await start(), await start()];
    [locks, rival] = apps.map((app) => app.get(LockService));
  });

  afterAll(async () => {
    for (const client of raw ?? []) client.disconnect();
    for (const app of apps ?? []) await app.close();
    await Promise.all((servers ?? []).map((s) => s.stop()));
  });

  it('takes the lock on every node, excludes a rival, and releases on every node', async () => {
    const lock = (await locks.tryAcquire('all-up', { ttlMs: 5000 }))!;
    expect(lock).not.toBeNull();
    expect(await Promise.all(raw.map((r) => r.get(key('all-up'))))).toEqual([lock.token, lock.token, lock.token]);
    expect(await rival.tryAcquire('all-up', { ttlMs: 5000 })).toBeNull();
    // The rival's failed attempt took no vote anywhere and left ours intact.
    expect(await Promise.all(raw.map((r) => r.get(key('all-up'))))).toEqual([lock.token, lock.token, lock.token]);
    expect(lock.remainingMs).toBeLessThanOrEqual(5000 - 50 - 2);
    expect(await lock.extend(8000)).toBe(true);
    expect(await lock.release()).toBe(true);
    expect(await Promise.all(raw.map((r) => r.exists(key('all-up'))))).toEqual([0, 0, 0]);
  });

  it('refuses a lock held on a majority and gives back the minority vote it got', async () => {
    await raw[0].set(key('majority'), 'other', 'PX', 5000);
    await raw[1].set(key('majority'), 'other', 'PX', 5000);
    expect(await locks.tryAcquire('majority', { ttlMs: 5000 })).toBeNull();
    expect(await raw[2].exists(key('majority'))).toBe(0);
    expect(await raw[0].get(key('majority'))).toBe('other');
  });

  it('keeps one holder at a time under real concurrency from two app instances', async () => {
    let active = 0;
    let maxActive = 0;
    let done = 0;
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        (i % 2 ? rival : locks).using(
          'contended',
          async () => {
            active++;
            maxActive = Math.max(maxActive, active);
            await new Promise((resolve) => setImmediate(resolve));
            active--;
            done++;
          },
          { ttlMs: 3000, waitMs: 15_000 },
        ),
      ),
    );
    expect(done).toBe(12);
    expect(maxActive).toBe(1);
  });

  it('still acquires with 1 of 3 servers down, and fails closed with 2 of 3 down', async () => {
    const before = (await locks.acquire('degraded', { ttlMs: 2000 }))!;
    await before.release();
    await servers[2].kill();
    const lock = (await locks.tryAcquire('degraded', { ttlMs: 2000 }))!;
    expect(lock).not.toBeNull();
    expect(lock.fencingToken).toBeGreaterThan(before.fencingToken);
    expect(await rival.tryAcquire('degraded', { ttlMs: 2000 })).toBeNull();
    expect(await lock.release()).toBe(true);

    await servers[1].kill();
    const startedAt = performance.now();
    const error = await locks.tryAcquire('degraded', { ttlMs: 2000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LockNotAcquiredError);
    expect((error as LockNotAcquiredError).reason).toBe('unavailable');
    expect(performance.now() - startedAt).toBeLessThan(1000);
    // The surviving node's vote was given back.
    expect(await raw[0].exists(key('degraded'))).toBe(0);
  });
});
