import { performance } from 'node:perf_hooks';
import type { INestApplication } from '@nestjs/common';
import { Cluster, type Redis } from 'ioredis';
import { InvalidArgumentError, InvalidOptionsError, LockLostError, LockNotAcquiredError, LockService } from 'nestjs-redis-patterns';
// Internals the spec checks the key layout with, by relative path (they are not part of the package's surface).
import { KeyBuilder } from '../../../libs/redis-patterns/src/core/keys/key-builder';
import { lockKeys } from '../../../libs/redis-patterns/src/lock/lock-keys';
import { type BackendName, connectionOf, inspectKeys, type KeyInspector } from '../../support/backends';
import { connectionFor, rawClient, uniquePrefix, waitFor } from '../../support/redis-env';
import { startLockApp, yieldTurn } from './lock-test-app';

describe.each<BackendName>(['standalone', 'cluster', 'memory'])('LockService on %s', (backend) => {
  const prefix = uniquePrefix(`lock-${backend}`);
  // Memory is per module instance: where a test needs a second instance sharing the locks, memory uses the first.
  const shared = backend !== 'memory';
  let app: INestApplication;
  let locks: LockService;
  let admin: KeyInspector;
  let raw: Redis | Cluster | undefined;
  const keysOf = (resource: string) => lockKeys(new KeyBuilder(prefix), resource);
  const start = () => startLockApp({ connection: connectionOf(backend), keyPrefix: prefix });

  beforeAll(async () => {
    app = await start();
    admin = inspectKeys(backend, app);
    if (backend !== 'memory') raw = rawClient(backend);
    locks = app.get(LockService);
  });

  afterAll(async () => {
    await app?.close();
    admin.close();
    raw?.disconnect();
  });

  it('passes the reference check: SET NX taken, second refused, PTTL ≤ TTL, release removes the key', async () => {
    const lock = await locks.tryAcquire('ref', { ttlMs: 5000 });
    expect(lock).not.toBeNull();
    const { lease: key } = keysOf('ref');
    expect(key).toBe(`${prefix}:lock:{ref}`);
    expect(await admin.get(key)).toBe(lock!.token);
    const pttl = await admin.pttl(key);
    expect(pttl).toBeGreaterThan(0);
    expect(pttl).toBeLessThanOrEqual(5000);
    expect(await locks.tryAcquire('ref', { ttlMs: 5000 })).toBeNull();
    // Another client's SET NX is refused too (Redis itself is the referee there).
    if (raw) expect(await raw.set(key, 'intruder', 'PX', 5000, 'NX')).toBeNull();
    expect(Buffer.from(lock!.token, 'base64url').length).toBeGreaterThanOrEqual(16);
    expect(await lock!.release()).toBe(true);
    expect(await admin.exists(key)).toBe(0);
    expect(await lock!.release()).toBe(false);
  });

  it('lets a stale holder neither release nor extend the new holder’s lock', async () => {
    const a = (await locks.tryAcquire('stale', { ttlMs: 150 }))!;
    const { lease: key } = keysOf('stale');
    await waitFor(async () => (await admin.exists(key)) === 0, 5000);
    const b = (await locks.tryAcquire('stale', { ttlMs: 5000 }))!;
    expect(b).not.toBeNull();
    expect(await a.release()).toBe(false);
    await expect(a.extend(5000)).rejects.toBeInstanceOf(LockLostError);
    expect(await admin.get(key)).toBe(b.token);
    expect(b.fencingToken).toBeGreaterThan(a.fencingToken);
    expect(await b.release()).toBe(true);
  });

  it('extends with compare-and-PEXPIRE and keeps the handle usable', async () => {
    const lock = (await locks.tryAcquire('ext', { ttlMs: 1000 }))!;
    expect(await lock.extend(20_000)).toBe(true);
    expect(await admin.pttl(keysOf('ext').lease)).toBeGreaterThan(10_000);
    expect(lock.remainingMs).toBeGreaterThan(10_000);
    expect(await lock.release()).toBe(true);
  });

  it('keeps a read-modify-write exact under 32 contenders (in two app instances on Redis), one holder at a time', async () => {
    const second = shared ? await start() : app;
    try {
      const services = [locks, second.get(LockService)];
      const counterKey = `${prefix}:counter`;
      const iterations = 5;
      let active = 0;
      let maxActive = 0;
      const contender = async (service: LockService) => {
        for (let i = 0; i < iterations; i++) {
          await service.using(
            'rmw',
            async () => {
              active++;
              maxActive = Math.max(maxActive, active);
              const value = Number((await admin.get(counterKey)) ?? '0');
              await yieldTurn();
              await admin.set(counterKey, String(value + 1), 60_000);
              active--;
            },
            { ttlMs: 5000, waitMs: 20_000 },
          );
        }
      };
      await Promise.all(Array.from({ length: 32 }, (_, i) => contender(services[i % 2])));
      expect(await admin.get(counterKey)).toBe(String(32 * iterations));
      expect(maxActive).toBe(1);
    } finally {
      if (second !== app) await second.close();
    }
  });

  it('issues strictly increasing fencing tokens across holders and app restarts', async () => {
    const tokens: number[] = [];
    for (let i = 0; i < 10; i++) {
      const lock = await locks.acquire('fence', { ttlMs: 2000, waitMs: 1000 });
      tokens.push(lock.fencingToken);
      await lock.release();
    }
    const restarted = await start();
    try {
      const lock = await restarted.get(LockService).acquire('fence', { ttlMs: 2000 });
      tokens.push(lock.fencingToken);
      await lock.release();
    } finally {
      await restarted.close();
    }
    for (let i = 1; i < tokens.length; i++) expect(tokens[i]).toBeGreaterThan(tokens[i - 1]);
    expect(tokens.every(Number.isSafeInteger)).toBe(true);
  });

  it('waits with backoff until a release, and gives up with 409-able contention after waitMs', async () => {
    const holder = (await locks.tryAcquire('wait', { ttlMs: 10_000 }))!;
    const startedAt = performance.now();
    await expect(locks.acquire('wait', { ttlMs: 1000, waitMs: 200 })).rejects.toMatchObject({
      name: 'LockNotAcquiredError',
      reason: 'contention',
      retryAfterMs: expect.any(Number),
    });
    expect(performance.now() - startedAt).toBeLessThan(2000);
    const waiting = locks.acquire('wait', { ttlMs: 1000, waitMs: 5000 });
    setTimeout(() => void holder.release(), 100);
    const lock = await waiting;
    expect(lock.isHeld).toBe(true);
    const error = await locks.acquire('wait', { waitMs: 0 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LockNotAcquiredError);
    expect((error as LockNotAcquiredError).toHttpResponse()).toMatchObject({ status: 409, headers: { 'Retry-After': '1' } });
    await lock.release();
  });

  it('keeps the lock and its fencing counter in one slot, escapes user input, and leaves no key without TTL', async () => {
    const resource = 'order:42 {x}*';
    const lock = (await locks.tryAcquire(resource, { ttlMs: 5000 }))!;
    const keys = keysOf(resource);
    expect(keys.lease).toBe(`${prefix}:lock:{order%3A42%20%7Bx%7D%2A}`);
    expect(await admin.get(keys.lease)).toBe(lock.token);
    if (raw instanceof Cluster) {
      expect(await raw.cluster('KEYSLOT', keys.fence)).toBe(await raw.cluster('KEYSLOT', keys.lease));
    }
    await lock.release();
    expect(await admin.keysWithoutTtl(`${prefix}:`)).toEqual([]);
    const fences = (await admin.keys(`${prefix}:lock:`)).filter((key) => key.endsWith(':fence'));
    expect(fences.length).toBeGreaterThan(0);
    for (const fence of fences) expect(await admin.pttl(fence)).toBeGreaterThan(24 * 3600 * 1000);
  });

  it('rejects bad arguments with errors naming them and writes nothing', async () => {
    await expect(locks.tryAcquire('', { ttlMs: 100 })).rejects.toMatchObject({ argument: 'resource' });
    await expect(locks.tryAcquire('bad-ttl', { ttlMs: -1 })).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(locks.acquire('bad-wait', { ttlMs: 100, waitMs: 1.5 })).rejects.toMatchObject({ argument: 'waitMs' });
    expect(await admin.keys(`${prefix}:lock:{bad`)).toEqual([]);
  });

  it('releases the locks it holds when the application closes', async () => {
    const other = await start();
    const keys = inspectKeys(backend, other);
    try {
      const lock = (await other.get(LockService).tryAcquire('held-at-close', { ttlMs: 60_000 }))!;
      expect(await keys.exists(lock.keys.lease)).toBe(1);
      await other.close();
      expect(await keys.exists(lock.keys.lease)).toBe(0);
    } finally {
      keys.close();
    }
  });
});

describe('lock options', () => {
  it.each([
    [{ defaultTtlMs: -5 }, 'lock.defaultTtlMs'],
    [{ ttl: 5 }, 'lock.ttl'],
    [{ autoExtendRatio: 1 }, 'lock.autoExtendRatio'],
    [{ redlock: { connections: ['default'] } }, 'lock.redlock.connections'],
    [{ waitReplicas: 1, waitReplicasTimeoutMs: 900 }, 'lock.waitReplicasTimeoutMs'],
  ])('fails startup on %j naming %s', async (lock, option) => {
    const error = await startLockApp({ connection: connectionFor('standalone'), lock: lock as never }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidOptionsError);
    expect((error as InvalidOptionsError).option).toBe(option);
  });
});
