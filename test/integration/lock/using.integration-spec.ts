import { performance } from 'node:perf_hooks';
import type { INestApplication } from '@nestjs/common';
import { LockLostError, LockService } from 'nestjs-redis-patterns';
import { type BackendName, connectionOf, inspectKeys, type KeyInspector } from '../../support/backends';
import { connectionFor, rawClient, uniquePrefix, waitFor } from '../../support/redis-env';
import { aborted, startLockApp } from './lock-test-app';

describe.each<BackendName>(['standalone', 'cluster', 'memory'])('LockService.using on %s', (backend) => {
  let app: INestApplication;
  let locks: LockService;
  let admin: KeyInspector;

  beforeAll(async () => {
    app = await startLockApp({ connection: connectionOf(backend), keyPrefix: uniquePrefix(`using-${backend}`) });
    admin = inspectKeys(backend, app);
    locks = app.get(LockService);
  });

  afterAll(async () => {
    await app?.close();
    admin.close();
  });

  it('extends the lock while work runs for 4× its TTL, then releases it', async () => {
    // Long enough that a loaded CI machine's event-loop stall (a few hundred ms) does not outlast the lease's
    // validity between two extensions: that would rightly abort the signal, and is not what this test is about.
    const ttlMs = 600;
    const pttls: number[] = [];
    let key = '';
    const result = await locks.using(
      'long-job',
      async (signal, lock) => {
        key = lock.keys.lease;
        const until = performance.now() + 4 * ttlMs;
        // The work itself lasts 4× the TTL; it samples the key's TTL as it goes.
        while (performance.now() < until) {
          pttls.push(await admin.pttl(key));
          await new Promise((resolve) => setTimeout(resolve, 40));
        }
        expect(signal.aborted).toBe(false);
        expect(await admin.get(key)).toBe(lock.token);
        return 'finished';
      },
      { ttlMs },
    );
    expect(result).toBe('finished');
    expect(pttls.length).toBeGreaterThan(10);
    expect(Math.min(...pttls)).toBeGreaterThan(0);
    expect(await admin.exists(key)).toBe(0);
    expect(locks.heldLocks()).toHaveLength(0);
  });

  it('aborts the signal within one extension interval when the key is deleted, and still returns the result', async () => {
    const ttlMs = 900; // extension interval: 300 ms
    let lostAfterMs = -1;
    let reason: unknown;
    const result = await locks.using(
      'lost-job',
      async (signal, lock) => {
        await admin.del(lock.keys.lease);
        const deletedAt = performance.now();
        reason = await aborted(signal);
        lostAfterMs = performance.now() - deletedAt;
        return 42;
      },
      { ttlMs },
    );
    expect(result).toBe(42);
    expect(reason).toBeInstanceOf(LockLostError);
    expect(lostAfterMs).toBeLessThan(300 + 250);
  });

  it('aborts when another holder took the lock, and never touches that holder’s key', async () => {
    let intruderToken = '';
    let key = '';
    await locks.using(
      'taken-job',
      async (signal, lock) => {
        key = lock.keys.lease;
        intruderToken = 'intruder';
        await admin.set(key, intruderToken, 10_000);
        expect(await aborted(signal)).toBeInstanceOf(LockLostError);
      },
      { ttlMs: 300 },
    );
    expect(await admin.get(key)).toBe(intruderToken);
    await admin.del(key);
  });

  it('propagates the work’s error unchanged and releases the lock', async () => {
    const failure = new Error('business failure');
    let key = '';
    await expect(
      locks.using('failing-job', (_signal, lock) => {
        key = lock.keys.lease;
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await admin.exists(key)).toBe(0);
  });

  it('waits for the lock when waitMs is given, and fails with contention otherwise', async () => {
    const holder = (await locks.tryAcquire('queued-job', { ttlMs: 5000 }))!;
    await expect(locks.using('queued-job', () => 'never', {})).rejects.toMatchObject({ reason: 'contention' });
    const queued = locks.using('queued-job', (_s, lock) => lock.fencingToken, { ttlMs: 1000, waitMs: 5000 });
    await holder.release();
    expect(await queued).toBeGreaterThan(holder.fencingToken);
  });
});

describe('using() at application shutdown', () => {
  it('lets running work finish within shutdownTimeoutMs, aborts what remains, and releases every lock', async () => {
    const admin = rawClient('standalone');
    const app = await startLockApp({
      connection: connectionFor('standalone'),
      keyPrefix: uniquePrefix('using-close'),
      shutdownTimeoutMs: 300,
    });
    const locks = app.get(LockService);
    let closed = false;
    try {
      let quickDone = false;
      let slowReason: unknown;
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const quick = locks.using('quick', async () => {
        await gate;
        quickDone = true;
      });
      const slow = locks.using('slow', async (signal) => {
        slowReason = await aborted(signal);
        return 'stopped';
      });
      await waitFor(() => locks.heldLocks().length === 2, 5000);
      const keys = locks.heldLocks().map((lock) => lock.keys.lease);
      const closing = app.close();
      closed = true;
      setImmediate(release);
      await closing;
      await quick;
      expect(quickDone).toBe(true);
      expect(await slow).toBe('stopped');
      expect(slowReason).toBeInstanceOf(LockLostError);
      expect(await Promise.all(keys.map((key) => admin.exists(key)))).toEqual([0, 0]);
      await expect(locks.tryAcquire('after-close')).rejects.toMatchObject({ reason: 'shutdown' });
    } finally {
      if (!closed) await app.close();
      admin.disconnect();
    }
  });
});
