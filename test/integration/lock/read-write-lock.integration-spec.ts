import { performance } from 'node:perf_hooks';
import type { INestApplication } from '@nestjs/common';
import type { Cluster } from 'ioredis';
import { InvalidArgumentError, LockLostError, LockNotAcquiredError, LockService, type ReadWriteLock } from 'nestjs-redis-patterns';
// Internals the spec checks the key layout with, by relative path (they are not part of the package's surface).
import { KeyBuilder } from '../../../libs/redis-patterns/src/core/keys/key-builder';
import { lockKeys, readWriteKeys } from '../../../libs/redis-patterns/src/lock/lock-keys';
import { type BackendName, connectionOf, inspectKeys, type KeyInspector } from '../../support/backends';
import { connectionFor, rawClient, uniquePrefix, waitFor } from '../../support/redis-env';
import { aborted, startLockApp, yieldTurn } from './lock-test-app';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each<BackendName>(['standalone', 'cluster', 'memory'])('LockService.readWrite on %s', (backend) => {
  const prefix = uniquePrefix(`rwlock-${backend}`);
  // Memory is per module instance: there the instances are one application.
  const instanceCount = backend === 'memory' ? 1 : 2;
  let apps: INestApplication[] = [];
  let locks: LockService;
  let admin: KeyInspector;
  const start = () => startLockApp({ connection: connectionOf(backend), keyPrefix: prefix });
  const rwKeys = (resource: string) => readWriteKeys(new KeyBuilder(prefix), resource);

  beforeAll(async () => {
    apps = await Promise.all(Array.from({ length: instanceCount }, start));
    locks = apps[0].get(LockService);
    admin = inspectKeys(backend, apps[0]);
  });

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    admin?.close();
  });

  it('lets readers overlap', async () => {
    const catalog = locks.readWrite('overlap');
    let readers = 0;
    let maxReaders = 0;
    await Promise.all(
      Array.from({ length: 8 }, () =>
        catalog.read(
          async () => {
            readers++;
            maxReaders = Math.max(maxReaders, readers);
            await sleep(40);
            readers--;
          },
          { ttlMs: 2000, waitMs: 5000 },
        ),
      ),
    );
    expect(maxReaders).toBeGreaterThan(1);
    // Two read leases at once through the manual API too; a write is refused meanwhile.
    const [a, b] = [(await catalog.tryRead({ ttlMs: 2000 }))!, (await catalog.tryRead({ ttlMs: 2000 }))!];
    expect(a.token).not.toBe(b.token);
    expect(await catalog.tryWrite()).toBeNull();
    expect(await a.release()).toBe(true);
    expect(await b.release()).toBe(true);
    const write = (await catalog.tryWrite({ ttlMs: 2000 }))!;
    expect(write).not.toBeNull();
    expect(await catalog.tryRead()).toBeNull();
    expect(await write.release()).toBe(true);
  });

  it(`never lets a writer overlap a reader or another writer (${instanceCount} instance(s), 16 contenders, many rounds)`, async () => {
    const services = apps.map((app) => app.get(LockService));
    const counterKey = `${prefix}:rw-counter`;
    let readers = 0;
    let writers = 0;
    let maxReaders = 0;
    let violations = 0;
    let writes = 0;
    const contender = async (service: LockService, id: number) => {
      const rw = service.readWrite('shared');
      for (let round = 0; round < 8; round++) {
        if ((id + round) % 4 === 0) {
          await rw.write(
            async () => {
              writers++;
              if (writers > 1 || readers > 0) violations++;
              // A read-modify-write that interleaving would break.
              const value = Number((await admin.get(counterKey)) ?? '0');
              await yieldTurn();
              await admin.set(counterKey, String(value + 1), 60_000);
              writes++;
              if (writers > 1 || readers > 0) violations++;
              writers--;
            },
            { ttlMs: 5000, waitMs: 30_000 },
          );
        } else {
          await rw.read(
            async () => {
              readers++;
              maxReaders = Math.max(maxReaders, readers);
              if (writers > 0) violations++;
              await sleep(2);
              if (writers > 0) violations++;
              readers--;
            },
            { ttlMs: 5000, waitMs: 30_000 },
          );
        }
      }
    };
    await Promise.all(Array.from({ length: 16 }, (_, i) => contender(services[i % services.length], i)));
    expect(violations).toBe(0);
    expect(writes).toBe(32);
    expect(await admin.get(counterKey)).toBe('32');
    expect(maxReaders).toBeGreaterThan(1);
    for (const service of services) expect(service.heldLocks()).toHaveLength(0);
  });

  it('prefers writers: a writer gets the lock within a bound while overlapping readers keep arriving', async () => {
    const rw = locks.readWrite('preference');
    let stop = false;
    let readers = 0;
    let readsDone = 0;
    // Four loops, each starting a new read as soon as its previous one ends: the readers overlap, so without
    // writer preference the lock would never be free of readers.
    const loop = async (service: LockService, delayMs: number) => {
      await sleep(delayMs);
      const mine = service.readWrite('preference');
      while (!stop) {
        await mine.read(
          async () => {
            readers++;
            await sleep(60);
            readers--;
            readsDone++;
          },
          { ttlMs: 5000, waitMs: 30_000 },
        );
      }
    };
    const services = apps.map((app) => app.get(LockService));
    const loops = Array.from({ length: 4 }, (_, i) => loop(services[i % services.length], i * 15));
    try {
      await waitFor(() => readsDone >= 8 && readers > 0, 10_000);
      const askedAt = performance.now();
      let readersInside = -1;
      await rw.write(() => (readersInside = readers), { ttlMs: 2000, waitMs: 10_000 });
      const waitedMs = performance.now() - askedAt;
      expect(readersInside).toBe(0);
      // The readers inside when the writer arrived (60 ms each) plus at most one backoff step (500 ms) of the writer.
      expect(waitedMs).toBeLessThan(1500);
      // And readers get back in once the write is done: the writer's waiting mark went with it.
      const doneBefore = readsDone;
      await waitFor(() => readsDone > doneBefore + 4, 3000);
    } finally {
      stop = true;
      await Promise.all(loops);
    }
  });

  it('takes a waiting writer’s mark down when it gives up, so readers need not wait for the mark to expire', async () => {
    const rw = locks.readWrite('give-up');
    const reader = (await rw.tryRead({ ttlMs: 5000 }))!;
    const error = await rw.write(() => 'never', { ttlMs: 1000, waitMs: 200 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LockNotAcquiredError);
    expect(error).toMatchObject({ reason: 'contention' });
    // The mark would live 2 × maxRetryDelayMs + commandTimeoutMs (1.5 s by default) without the withdrawal.
    let second: Awaited<ReturnType<ReadWriteLock['tryRead']>> = null;
    await waitFor(async () => (second = await rw.tryRead({ ttlMs: 5000 })) !== null, 500);
    await Promise.all([reader.release(), second!.release()]);
    expect(await admin.exists(rwKeys('give-up').waiting)).toBe(0);
  });

  it('issues fencing tokens from the mutex’s counter: reads, writes and mutex locks of a resource increase together', async () => {
    const rw = locks.readWrite('fenced');
    const first = await locks.acquire('fenced', { ttlMs: 2000 });
    await first.release();
    const write = await rw.write((_signal, lease) => lease.fencingToken, { ttlMs: 2000 });
    const read = await rw.read((_signal, lease) => lease.fencingToken, { ttlMs: 2000 });
    const last = await locks.acquire('fenced', { ttlMs: 2000 });
    await last.release();
    expect(write).toBeGreaterThan(first.fencingToken);
    expect(read).toBeGreaterThan(write);
    expect(last.fencingToken).toBeGreaterThan(read);
    expect(rwKeys('fenced').fence).toBe(lockKeys(new KeyBuilder(prefix), 'fenced').fence);
    expect(await admin.get(rwKeys('fenced').fence)).toBe(String(last.fencingToken));
  });

  it('aborts the signal when a read or write lease is lost, and releases what remains', async () => {
    const rw = locks.readWrite('lost');
    const keys = rwKeys('lost');
    const readReason = await rw.read(
      async (signal) => {
        await admin.del(keys.readers);
        return aborted(signal);
      },
      { ttlMs: 600 },
    );
    const writeReason = await rw.write(
      async (signal) => {
        await admin.set(keys.writer, 'intruder', 10_000);
        return aborted(signal);
      },
      { ttlMs: 600 },
    );
    expect(readReason).toBeInstanceOf(LockLostError);
    expect(writeReason).toBeInstanceOf(LockLostError);
    // The writer key someone else took is left alone.
    expect(await admin.get(keys.writer)).toBe('intruder');
    await admin.del(keys.writer);
  });

  it('exposes the lease to the work through current(), and extends it while the work runs', async () => {
    const rw = locks.readWrite('extended');
    // Long enough that a loaded machine's event-loop stall does not outlast the validity between two extensions.
    const ttlMs = 600;
    const pttls: number[] = [];
    const fencingToken = await rw.write(
      async (_signal, lease) => {
        expect(locks.current()).toBe(lease);
        const until = performance.now() + 3 * ttlMs;
        while (performance.now() < until) {
          pttls.push(await admin.pttl(lease.keys.lease));
          await sleep(40);
        }
        return lease.fencingToken;
      },
      { ttlMs },
    );
    expect(fencingToken).toBeGreaterThan(0);
    expect(Math.min(...pttls)).toBeGreaterThan(0);
    expect(await admin.exists(rwKeys('extended').writer)).toBe(0);
  });

  it('keeps every key in the lock’s slot group, escapes the resource, and leaves no key without a TTL', async () => {
    const resource = 'doc:7 {x}';
    const rw = locks.readWrite(resource);
    const keys = rwKeys(resource);
    expect(keys.writer).toBe(`${prefix}:lock:{doc%3A7%20%7Bx%7D}:rw-writer`);
    const read = (await rw.tryRead({ ttlMs: 5000 }))!;
    // A writer that waits leaves its mark (a key with a TTL too) while the reader holds.
    await expect(rw.write(() => undefined, { waitMs: 50 })).rejects.toBeInstanceOf(LockNotAcquiredError);
    if (backend === 'cluster') {
      const raw = rawClient('cluster') as Cluster;
      try {
        const slot = await raw.cluster('KEYSLOT', lockKeys(new KeyBuilder(prefix), resource).lease);
        for (const key of Object.values(keys)) expect(await raw.cluster('KEYSLOT', key)).toBe(slot);
      } finally {
        raw.disconnect();
      }
    }
    expect(await admin.pttl(keys.readers)).toBeGreaterThan(0);
    expect(await admin.keysWithoutTtl(`${prefix}:`)).toEqual([]);
    await read.release();
    expect(await admin.exists(keys.readers)).toBe(0);
  });

  it('rejects bad arguments naming them', async () => {
    expect(() => locks.readWrite('')).toThrow(InvalidArgumentError);
    const rw = locks.readWrite('bad-args');
    await expect(rw.read('work' as never)).rejects.toMatchObject({ argument: 'work' });
    await expect(rw.write(() => 1, { waitMs: 1.5 })).rejects.toMatchObject({ argument: 'waitMs' });
    await expect(rw.tryRead({ ttlMs: 0 })).rejects.toMatchObject({ argument: 'ttlMs' });
    expect(await admin.keys(`${prefix}:lock:{bad-args}`)).toEqual([]);
  });

  it('gives back the leases an instance holds when its application closes', async () => {
    const other = await start();
    const keys = inspectKeys(backend, other);
    try {
      const lease = (await other.get(LockService).readWrite('held-at-close').tryRead({ ttlMs: 60_000 }))!;
      expect(await keys.exists(lease.keys.lease)).toBe(1);
      await other.close();
      expect(await keys.exists(lease.keys.lease)).toBe(0);
    } finally {
      keys.close();
    }
  });
});

describe('readWrite in Redlock mode', () => {
  it('is refused: read-write locks run on one deployment', async () => {
    const url = connectionFor('standalone') as string;
    const app = await startLockApp({
      connection: url,
      connections: { a: url, b: url, c: url },
      keyPrefix: uniquePrefix('rw-redlock'),
      lock: { redlock: { connections: ['a', 'b', 'c'] } },
    });
    try {
      expect(() => app.get(LockService).readWrite('x')).toThrow(/lock\.redlock/);
    } finally {
      await app.close();
    }
  });
});
