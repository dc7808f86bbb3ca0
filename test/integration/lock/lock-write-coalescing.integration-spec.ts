import type { INestApplication } from '@nestjs/common';
import { Redis } from 'ioredis';
import { LockService, RedisConnections } from '@app/redis-patterns';
import type { StandaloneTopology } from '../../harness/topologies';
import { privateServer, uniquePrefix } from '../../support/redis-env';
import { startLockApp } from './lock-test-app';

// A private server, so that `dbsize` sees only this test's keys.
describe('lock commands of one tick share a socket write (private server)', () => {
  let server: StandaloneTopology;
  let app: INestApplication;
  let locks: LockService;
  let admin: Redis;

  beforeAll(async () => {
    server = await privateServer();
    app = await startLockApp({ connection: server.url, keyPrefix: uniquePrefix('lock-writes') });
    locks = app.get(LockService);
    admin = new Redis(server.url);
  });

  afterAll(async () => {
    admin?.disconnect();
    await app?.close();
    await server?.stop();
  });

  it('sends 64 concurrent acquires and their releases in a handful of socket writes, each with its own reply', async () => {
    // Counts the writes the client's socket hands to the OS (one per `_write`, one per batched `_writev`).
    const socket = (app.get(RedisConnections).get() as Redis).stream as unknown as Record<'_write' | '_writev', unknown>;
    const write = jest.spyOn(socket as never, '_write' as never);
    const writev = jest.spyOn(socket as never, '_writev' as never);
    try {
      const held = await Promise.all(Array.from({ length: 64 }, (_, i) => locks.acquire(`batch-${i}`, { ttlMs: 5000 })));
      expect(new Set(held.map((lock) => lock.token)).size).toBe(64);
      expect(await Promise.all(held.map((lock) => lock.release()))).toEqual(Array(64).fill(true));
      // 128 commands; written one by one they would take ~128 writes.
      expect(write.mock.calls.length + writev.mock.calls.length).toBeLessThanOrEqual(8);
    } finally {
      write.mockRestore();
      writev.mockRestore();
    }
    expect(await admin.dbsize()).toBe(64); // only the fencing counters remain
  });

  it('keeps the connection usable for other commands written in the same tick', async () => {
    const client = app.get(RedisConnections).get() as Redis;
    const [lock, pong] = await Promise.all([locks.acquire('mixed', { ttlMs: 5000 }), client.ping()]);
    expect(pong).toBe('PONG');
    expect(await admin.get(lock.keys.lock)).toBe(lock.token);
    expect(await lock.release()).toBe(true);
  });
});
