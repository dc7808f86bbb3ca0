import { performance } from 'node:perf_hooks';
import { Injectable, type INestApplication } from '@nestjs/common';
import { Redis } from 'ioredis';
import { LockLostError, LockNotAcquiredError, LockService, WithLock } from 'nestjs-redis-patterns';
import { privateServer, type RedisServerProcess, uniquePrefix, waitFor } from '../../support/redis-env';
import { aborted, startLockApp } from './lock-test-app';

@Injectable()
class Payments {
  runs = 0;

  @WithLock({ resource: 'settle', ttlMs: 2000 })
  async settle(): Promise<void> {
    this.runs++;
  }
}

const COMMAND_TIMEOUT_MS = 300;

describe('locks when Redis fails (private server)', () => {
  let server: RedisServerProcess;
  let app: INestApplication;
  let locks: LockService;

  beforeAll(async () => {
    server = await privateServer();
    app = await startLockApp(
      { connection: server.url, keyPrefix: uniquePrefix('lock-faults'), commandTimeoutMs: COMMAND_TIMEOUT_MS, shutdownTimeoutMs: 300 },
      { providers: [Payments] },
    );
    locks = app.get(LockService);
  });

  afterAll(async () => {
    server.resume();
    await app?.close();
    await server?.stop();
  });

  it('fails closed within the command timeout when the server is frozen: nothing runs unlocked', async () => {
    const payments = app.get(Payments);
    server.freeze();
    try {
      const startedAt = performance.now();
      const error = await locks.tryAcquire('frozen', { ttlMs: 1000 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LockNotAcquiredError);
      expect((error as LockNotAcquiredError).reason).toBe('unavailable');
      expect((error as LockNotAcquiredError).toHttpResponse().status).toBe(503);
      expect(performance.now() - startedAt).toBeLessThan(COMMAND_TIMEOUT_MS + 700);

      await expect(payments.settle()).rejects.toMatchObject({ reason: 'unavailable' });
      let worked = false;
      await expect(locks.using('frozen', () => (worked = true), { waitMs: 500 })).rejects.toBeInstanceOf(LockNotAcquiredError);
      expect(payments.runs).toBe(0);
      expect(worked).toBe(false);
    } finally {
      server.resume();
    }
    await waitFor(async () => (await locks.tryAcquire('after-freeze', { ttlMs: 1000 }).catch(() => null)) !== null, 10_000);
    // The acquisitions that timed out reached the server when it woke up; their queued compare-and-delete removed
    // them, so nothing is left locked for a whole TTL by a token nobody knows.
    const again = await locks.tryAcquire('frozen', { ttlMs: 1000 });
    expect(again).not.toBeNull();
    await again!.release();
    await payments.settle();
    expect(payments.runs).toBe(1);
  });

  it('aborts using() when Redis freezes mid-work: the validity runs out without an extension', async () => {
    const ttlMs = 600;
    let reason: unknown;
    let lostAfterMs = -1;
    await locks.using(
      'freeze-mid-work',
      async (signal) => {
        server.freeze();
        const frozenAt = performance.now();
        try {
          reason = await aborted(signal);
          lostAfterMs = performance.now() - frozenAt;
        } finally {
          server.resume();
        }
      },
      { ttlMs },
    );
    expect(reason).toBeInstanceOf(LockLostError);
    expect(lostAfterMs).toBeLessThanOrEqual(ttlMs + 100);
  });

  it('keeps fencing tokens increasing across a server restart that lost the counter', async () => {
    // The previous test froze the server: wait until the connection is back before taking the first token.
    let before: Awaited<ReturnType<LockService['tryAcquire']>> = null;
    await waitFor(async () => (before = await locks.tryAcquire('fence-restart', { ttlMs: 1000 }).catch(() => null)) !== null, 10_000);
    await server.kill();
    await server.restart();
    const client = new Redis(server.url);
    try {
      expect(await client.dbsize()).toBe(0);
    } finally {
      client.disconnect();
    }
    let after: Awaited<ReturnType<LockService['tryAcquire']>> = null;
    await waitFor(async () => (after = await locks.tryAcquire('fence-restart', { ttlMs: 1000 }).catch(() => null)) !== null, 10_000);
    expect(after!.fencingToken).toBeGreaterThan(before!.fencingToken);
    await after!.release();
  });
});

describe('WAIT replica acknowledgement (private servers)', () => {
  let primary: RedisServerProcess;
  let replica: RedisServerProcess | undefined;

  afterAll(async () => {
    await replica?.stop();
    await primary?.stop();
  });

  it('gives the lock back when too few replicas acknowledge it, and grants it once a replica syncs', async () => {
    primary = await privateServer();
    const prefix = uniquePrefix('lock-wait');
    const options = { connection: primary.url, keyPrefix: prefix, lock: { waitReplicas: 1, waitReplicasTimeoutMs: 50 } };
    const app = await startLockApp(options);
    const client = new Redis(primary.url);
    try {
      const locks = app.get(LockService);
      await expect(locks.tryAcquire('replicated', { ttlMs: 5000 })).rejects.toMatchObject({ reason: 'replication' });
      const error = await locks.acquire('replicated', { ttlMs: 5000 }).catch((e: unknown) => e);
      expect(error).toMatchObject({ name: 'LockNotAcquiredError', reason: 'replication' });
      expect(await client.exists(`${prefix}:lock:{replicated}`)).toBe(0);

      replica = await privateServer(['--replicaof', '127.0.0.1', String(primary.port)]);
      await waitFor(async () => /connected_slaves:1/.test(await client.info('replication')), 10_000);
      await waitFor(async () => /state=online/.test(await client.info('replication')), 10_000);
      const lock = await locks.acquire('replicated', { ttlMs: 5000, waitMs: 2000 });
      expect(lock.isHeld).toBe(true);
      const onReplica = new Redis(replica.url);
      try {
        expect(await onReplica.get(lock.keys.lease)).toBe(lock.token);
      } finally {
        onReplica.disconnect();
      }
      expect(await lock.release()).toBe(true);
    } finally {
      client.disconnect();
      await app.close();
    }
  });
});
