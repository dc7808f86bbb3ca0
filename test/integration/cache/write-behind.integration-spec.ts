import { Injectable, type INestApplication, type LoggerService } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import {
  CachePut,
  CacheService,
  InvalidOptionsError,
  RedisConnections,
  RedisPatternsModule,
  type WriteBehindChange,
  WriteBehindService,
  WriteBehindWriter,
} from 'nestjs-redis-patterns';
import type { Redis } from 'ioredis';
import { rawClient, uniquePrefix, waitFor } from '../../support/redis-env';
// The write script and the executor, internals by relative path: the spec plays a process that stopped mid-write.
import { RedisExecutor } from '../../../libs/redis-patterns/src/core/scripts/redis-executor';
import { WRITE_BEHIND_WRITE_SCRIPT } from '../../../libs/redis-patterns/src/cache/write-behind/scripts/write-behind-write.script';
import { type BackendName, connectionOf } from '../../support/backends';

/** The data source behind the cache: what the writer saved, per key, and every batch it was handed. */
class RecordingSource {
  readonly rows = new Map<string, { value: unknown; version: string }>();
  readonly batches: Array<ReadonlyArray<WriteBehindChange>> = [];
  /** Versions applied per key, in the order they were applied. */
  readonly applied = new Map<string, string[]>();
  failuresLeft = 0;
  alwaysFail = false;

  save(changes: ReadonlyArray<WriteBehindChange>): void {
    if (this.alwaysFail || this.failuresLeft > 0) {
      this.failuresLeft--;
      throw new Error('database unavailable');
    }
    this.batches.push(changes);
    for (const { key, value, version } of changes) {
      this.rows.set(key, { value, version });
      this.applied.set(key, [...(this.applied.get(key) ?? []), version]);
    }
  }
}

@Injectable()
class OrdersWriter {
  static source = new RecordingSource();

  @WriteBehindWriter('orders')
  async save(changes: ReadonlyArray<WriteBehindChange>): Promise<void> {
    OrdersWriter.source.save(changes);
  }
}

@Injectable()
class CartsService {
  // The decorator form: the method returns what to store; the queue's writer saves it later.
  @CachePut({ key: (id: string) => `cart:${id}`, ttlMs: 60_000, writeBehind: 'orders' })
  async update(id: string, items: string[]): Promise<{ id: string; items: string[] }> {
    return { id, items };
  }
}

const FAST = { delayMs: 30, retryDelayMs: 30, partitions: 4, leaseTtlMs: 2000 };

async function startApp(
  topology: BackendName,
  prefix: string,
  writeBehind: Record<string, unknown> = {},
  withWriter = true,
  logger?: LoggerService,
) {
  const moduleRef = await Test.createTestingModule({
    imports: [
      RedisPatternsModule.forRoot({
        connection: connectionOf(topology),
        keyPrefix: prefix,
        writeBehind: { ...FAST, ...writeBehind },
        logger,
      }),
    ],
    providers: withWriter ? [OrdersWriter, CartsService] : [],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.init();
  return app;
}

/** Stream id order: `<ms>-<seq>`. */
function ascending(versions: string[]): boolean {
  const parsed = versions.map((v) => v.split('-').map(BigInt));
  return parsed.every((v, i) => i === 0 || v[0] > parsed[i - 1][0] || (v[0] === parsed[i - 1][0] && v[1] > parsed[i - 1][1]));
}

describe.each<BackendName>(['standalone', 'cluster', 'memory'])('write-behind caching on %s', (topology) => {
  let app: INestApplication;
  let writeBehind: WriteBehindService;
  let prefix: string;

  beforeEach(async () => {
    OrdersWriter.source = new RecordingSource();
    prefix = uniquePrefix(`write-behind-${topology}`);
    app = await startApp(topology, prefix, { maxAttempts: 3 });
    writeBehind = app.get(WriteBehindService);
  });

  afterEach(() => app?.close());

  it('reads its own writes from the cache before the flush, then the writer gets the last value with its version', async () => {
    await app.close();
    // No flush until the application closes (its drain flushes).
    app = await startApp(topology, prefix, { delayMs: 60_000 });
    writeBehind = app.get(WriteBehindService);
    await writeBehind.write('orders', 'order:1', { total: 10 });
    await writeBehind.write('orders', 'order:1', { total: 20 });
    await writeBehind.write('orders', 'order:1', { total: 30 });
    expect(await app.get(CacheService).get('order:1')).toEqual({ total: 30 });
    expect(await writeBehind.get('order:1')).toEqual({ total: 30 });
    expect(await writeBehind.pending('orders')).toBe(3);
    expect(OrdersWriter.source.batches).toHaveLength(0);
    await app.close();
    // Three writes between flushes reach the writer as one change, the last, with the last version.
    const source = OrdersWriter.source;
    expect(source.rows.get('order:1')?.value).toEqual({ total: 30 });
    expect(source.applied.get('order:1')).toHaveLength(1);
    expect(source.rows.get('order:1')?.version).toMatch(/^\d+-\d+$/);
  });

  it('applies the changes of every key in the order they were written, in batches of at most batchSize', async () => {
    await app.close();
    app = await startApp(topology, prefix, { batchSize: 3 });
    writeBehind = app.get(WriteBehindService);
    const last = new Map<string, number>();
    for (let i = 0; i < 60; i++) {
      const key = `order:${i % 7}`;
      await writeBehind.write('orders', key, { n: i });
      last.set(key, i);
    }
    await waitFor(
      async () => (await writeBehind.pending('orders')) === 0,
      10_000,
      () => 'every change flushed',
    );
    const source = OrdersWriter.source;
    for (const [key, n] of last) {
      expect(source.rows.get(key)?.value).toEqual({ n });
      expect(ascending(source.applied.get(key)!)).toBe(true);
    }
    expect(Math.max(...source.batches.map((batch) => batch.length))).toBeLessThanOrEqual(3);
  });

  it('retries a failing writer, then dead-letters what keeps failing, with its value and error', async () => {
    const source = OrdersWriter.source;
    source.failuresLeft = 1;
    await writeBehind.write('orders', 'order:retry', { ok: true });
    await waitFor(
      () => source.rows.has('order:retry'),
      5000,
      () => 'the retried flush',
    );
    expect(writeBehind.stats('orders')).toMatchObject({ retried: 1 });

    source.alwaysFail = true;
    await writeBehind.write('orders', 'order:poison', { bad: true });
    await waitFor(
      async () => (await writeBehind.pending('orders')) === 0,
      10_000,
      () => 'the change dead-lettered',
    );
    expect(writeBehind.stats('orders')).toMatchObject({ deadLettered: 1 });
    const letters = await writeBehind.deadLetters('orders');
    expect(letters).toHaveLength(1);
    expect(letters[0]).toMatchObject({ key: 'order:poison', value: { bad: true }, error: 'Error: database unavailable' });
    expect(letters[0].version).toMatch(/^\d+-\d+$/);
    // The cache still answers with the value written.
    expect(await writeBehind.get('order:poison')).toEqual({ bad: true });
  });

  it("waits between a failing partition's attempts from retryDelayMs, doubling, never past maxRetryDelayMs", async () => {
    const waits: number[] = [];
    const logger: LoggerService = {
      log: () => undefined,
      error: () => undefined,
      warn: (message: unknown) => {
        const wait = /retried in (\d+) ms/.exec(String(message));
        if (wait) waits.push(Number(wait[1]));
      },
    };
    const capped = await startApp(
      topology,
      uniquePrefix(`write-behind-backoff-${topology}`),
      { delayMs: 5, retryDelayMs: 10, maxRetryDelayMs: 40, maxAttempts: 1000 },
      true,
      logger,
    );
    try {
      OrdersWriter.source.alwaysFail = true;
      await capped.get(WriteBehindService).write('orders', 'order:down', { down: true });
      await waitFor(
        () => waits.length >= 8,
        10_000,
        () => `8 retries (${waits.length} so far)`,
      );
    } finally {
      await capped.close();
    }
    // Equal jitter: each wait is in the upper half of its ceiling, 10 · 2^n capped at 40.
    expect(waits[0]).toBeGreaterThanOrEqual(5);
    expect(waits[0]).toBeLessThanOrEqual(10);
    expect(Math.max(...waits)).toBeLessThanOrEqual(40);
    expect(waits.slice(2).every((ms) => ms >= 20)).toBe(true);
  });

  it('writes behind from @CachePut({ writeBehind }): cached at once, saved by the writer', async () => {
    const carts = app.get(CartsService);
    expect(await carts.update('7', ['book'])).toEqual({ id: '7', items: ['book'] });
    expect(await app.get(CacheService).get('cart:7')).toEqual({ id: '7', items: ['book'] });
    await waitFor(
      () => OrdersWriter.source.rows.has('cart:7'),
      5000,
      () => 'the cart saved by the writer',
    );
    expect(OrdersWriter.source.rows.get('cart:7')?.value).toEqual({ id: '7', items: ['book'] });
  });

  it('flushes what is pending when the application closes', async () => {
    await app.close();
    app = await startApp(topology, prefix, { delayMs: 60_000 });
    writeBehind = app.get(WriteBehindService);
    await writeBehind.write('orders', 'order:closing', { last: true });
    await app.close();
    expect(OrdersWriter.source.rows.get('order:closing')?.value).toEqual({ last: true });
  });
});

// In memory each application has a keyspace of its own: sharing needs a server.
describe.each<BackendName>(['standalone', 'cluster'])('write-behind shared by instances on %s', (topology) => {
  let app: INestApplication;
  let writeBehind: WriteBehindService;
  let prefix: string;

  beforeEach(async () => {
    OrdersWriter.source = new RecordingSource();
    app = await startApp(topology, (prefix = uniquePrefix(`write-behind-shared-${topology}`)));
    writeBehind = app.get(WriteBehindService);
  });

  afterEach(() => app?.close());

  it('shares the work between instances, each key still applied in order and none lost', async () => {
    const other = await startApp(topology, prefix);
    try {
      const instances = [writeBehind, other.get(WriteBehindService)];
      const last = new Map<string, number>();
      await Promise.all(
        Array.from({ length: 4 }, async (_, worker) => {
          for (let i = 0; i < 50; i++) {
            const n = worker * 1000 + i;
            const key = `order:${n % 20}`;
            await instances[n % 2].write('orders', key, { n });
            last.set(key, Math.max(last.get(key) ?? -1, n));
          }
        }),
      );
      await waitFor(
        async () => (await writeBehind.pending('orders')) === 0,
        15_000,
        () => 'every change flushed',
      );
      const source = OrdersWriter.source;
      for (const versions of source.applied.values()) expect(ascending(versions)).toBe(true);
      // Concurrent writers of one key: the write that landed last is what the cache holds, and the source agrees.
      for (const key of last.keys()) expect(source.rows.get(key)?.value).toEqual(await writeBehind.get(key));
      expect(source.rows.size).toBe(20);
    } finally {
      await other.close();
    }
  });
});

describe.each<BackendName>(['standalone', 'cluster'])('write-behind at shutdown with a failing writer, on %s', (topology) => {
  it('leaves the change pending for the next start rather than spending its attempts in the drain', async () => {
    const prefix = uniquePrefix(`write-behind-drain-${topology}`);
    OrdersWriter.source = new RecordingSource();
    OrdersWriter.source.alwaysFail = true;
    const app = await startApp(topology, prefix, { delayMs: 60_000, maxAttempts: 3 });
    await app.get(WriteBehindService).write('orders', 'order:kept', { kept: true });
    await app.close();
    const next = await startApp(topology, prefix, { delayMs: 60_000 }, false);
    try {
      const writeBehind = next.get(WriteBehindService);
      expect(await writeBehind.pending('orders')).toBe(1);
      expect(await writeBehind.deadLetters('orders')).toEqual([]);
      expect(await writeBehind.get('order:kept')).toEqual({ kept: true });
    } finally {
      await next.close();
    }
  });
});

describe('write-behind after an instance stops mid-flush (standalone)', () => {
  it("hands the stopped instance's partitions to another once their leases expire, and loses nothing", async () => {
    const prefix = uniquePrefix('write-behind-takeover');
    const [stopped, survivor] = await Promise.all([
      startApp('standalone', prefix, { leaseTtlMs: 300 }, false),
      startApp('standalone', prefix, { leaseTtlMs: 300 }, false),
    ]);
    let release: () => void = () => undefined;
    try {
      let calls = 0;
      // The first instance takes batches and never finishes them; then its connection goes, as in a crash.
      stopped.get(WriteBehindService).registerWriter('takeover', () => {
        calls++;
        return new Promise<void>((resolve) => (release = resolve));
      });
      const keys = Array.from({ length: 10 }, (_, i) => `row:${i}`);
      for (const key of keys) await survivor.get(WriteBehindService).write('takeover', key, { key });
      await waitFor(
        () => calls > 0,
        5000,
        () => 'the first instance flushing',
      );
      stopped.get(RedisConnections).get().disconnect();
      const saved = new Set<string>();
      survivor.get(WriteBehindService).registerWriter('takeover', (changes) => {
        for (const change of changes) saved.add(change.key);
      });
      await waitFor(
        () => keys.every((key) => saved.has(key)),
        10_000,
        () => `every row saved by the survivor (${saved.size})`,
      );
      await waitFor(
        async () => (await survivor.get(WriteBehindService).pending('takeover')) === 0,
        5000,
        () => 'nothing pending',
      );
    } finally {
      release();
      await Promise.all([stopped.close(), survivor.close()]);
    }
  });
});

describe('write-behind when a writing process stops between its two steps (standalone)', () => {
  it('refuses a write whose announcement is too old, and gives up an announcement whose write never landed', async () => {
    const prefix = uniquePrefix('write-behind-landing');
    const app = await startApp('standalone', prefix, { partitions: 1 }, false);
    const redis = rawClient('standalone') as Redis;
    try {
      const writeBehind = app.get(WriteBehindService);
      const saved: string[] = [];
      // An announcement from long ago with no change behind it: its writer died before the second step.
      const partition = `${prefix}:write-behind:{lost:0}`;
      await redis.xadd(partition, '1000-0', 'k', 'lost:1');
      // The second step of that write, arriving now, is refused: the flusher may already have given it up.
      const executor = RedisExecutor.of(app.get(RedisConnections).get());
      const entry = `${prefix}:cache:{lost%3A1}`;
      expect(await executor.run(WRITE_BEHIND_WRITE_SCRIPT, [entry, `${entry}:wb`], ['1::0:0:1', 60_000, '1000-0', 10_000])).toBe(-1);
      expect(await redis.exists(entry, `${entry}:wb`)).toBe(0);
      writeBehind.registerWriter('lost', (changes) => void saved.push(...changes.map((change) => change.key)));
      await writeBehind.write('lost', 'lost:2', { kept: true });
      // The dead announcement does not hold the partition: the next write behind it is saved, and it is counted.
      await waitFor(
        () => saved.includes('lost:2'),
        5000,
        () => 'the write after the dead announcement',
      );
      expect(saved).not.toContain('lost:1');
      expect(writeBehind.stats('lost')).toMatchObject({ abandoned: 1 });
      expect(await writeBehind.pending('lost')).toBe(0);
    } finally {
      redis.disconnect();
      await app.close();
    }
  });
});

describe('@CachePut with writeBehind at startup', () => {
  it('fails naming the option when the writer would get no key', async () => {
    @Injectable()
    class Keyless {
      @CachePut({ writeBehind: 'orders' })
      async save(): Promise<number> {
        return 1;
      }
    }
    const moduleRef = await Test.createTestingModule({
      imports: [RedisPatternsModule.forRoot({ connection: 'memory://', keyPrefix: uniquePrefix('wb-keyless') })],
      providers: [Keyless],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await expect(app.init()).rejects.toThrow(InvalidOptionsError);
    await expect(app.init()).rejects.toThrow(/Keyless\.save.*key/);
    await app.close();
  });

  it("fails naming writeBehind.connection when it is not the cache's (a write changes a cache entry)", async () => {
    const url = connectionOf('standalone') as string;
    await expect(
      Test.createTestingModule({
        imports: [
          RedisPatternsModule.forRoot({
            connection: url,
            connections: { queue: url },
            keyPrefix: uniquePrefix('wb-connection'),
            writeBehind: { connection: 'queue' },
          }),
        ],
      }).compile(),
    ).rejects.toThrow(/writeBehind\.connection/);
  });
});
