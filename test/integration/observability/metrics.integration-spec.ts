import type { INestApplicationContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { metrics } from '@opentelemetry/api';
import { type DataPoint, type Histogram, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import {
  CacheService,
  IdempotencyService,
  LockService,
  RateLimiterService,
  RedisConnections,
  RedisPatternsModule,
  WriteBehindService,
} from 'nestjs-redis-patterns';
import { PubSubService, StreamsService } from 'nestjs-redis-patterns/messaging';
import { libraryMeter } from '../../../libs/redis-patterns/src/core/telemetry/metrics';
import { type BackendName, connectionOf, inspectKeys } from '../../support/backends';
import { Redis } from 'ioredis';
import { privateServer, rawClient, type RedisServerProcess, uniquePrefix, waitFor } from '../../support/redis-env';

/** A reader the test collects from when it wants (the SDK's pull path, no exporter or timer). */
class CollectingReader extends MetricReader {
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }

  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
}

const ALLOWED_ATTRIBUTES = new Set(['result', 'outcome', 'limiter', 'operation', 'stream', 'group', 'connection', 'state', 'queue']);

/** An application of the module with an SDK registered before it was created, and sums of what it recorded. */
function withMeteredApp(backend: BackendName, moduleOptions: () => Record<string, unknown> = () => ({})) {
  const reader = new CollectingReader();
  const provider = new MeterProvider({ readers: [reader] });
  const harness = { app: undefined as unknown as INestApplicationContext, reader, sum };

  beforeAll(async () => {
    // The SDK is registered before the application is created, as OpenTelemetry's Node setup does.
    metrics.setGlobalMeterProvider(provider);
    const moduleRef = await Test.createTestingModule({
      imports: [
        RedisPatternsModule.forRoot({ connection: connectionOf(backend), keyPrefix: uniquePrefix(`otel-${backend}`), ...moduleOptions() }),
      ],
    }).compile();
    harness.app = await moduleRef.init();
  });

  afterAll(async () => {
    await harness.app?.close();
    metrics.disable();
    await provider.shutdown();
  });

  async function sum(name: string, attributes: Record<string, string> = {}): Promise<number> {
    const { resourceMetrics } = await reader.collect();
    const scope = resourceMetrics.scopeMetrics.find((s) => s.scope.name === 'nestjs-redis-patterns');
    const points = (scope?.metrics.find((m) => m.descriptor.name === name)?.dataPoints ?? []) as Array<DataPoint<number | Histogram>>;
    const matching = points.filter((p) => Object.entries(attributes).every(([k, v]) => p.attributes[k] === v));
    return matching.reduce((total, p) => total + (typeof p.value === 'number' ? p.value : p.value.count), 0);
  }

  return harness;
}

describe.each<BackendName>(['standalone', 'memory'])('OpenTelemetry metrics on %s', (backend) => {
  const metered = withMeteredApp(backend);
  const sum = metered.sum;
  let app: INestApplicationContext;
  beforeAll(() => {
    app = metered.app;
  });

  it('counts cache requests by result and times the loader on a miss', async () => {
    const cache = app.get(CacheService);
    let loads = 0;
    const loader = async () => ++loads;
    await cache.wrap('otel-item', loader, { ttl: 60 });
    await cache.wrap('otel-item', loader, { ttl: 60 });
    await cache.get('otel-absent');
    expect(await sum('redis_patterns.cache.requests', { result: 'miss' })).toBe(2);
    expect(await sum('redis_patterns.cache.requests', { result: 'hit' })).toBe(1);
    expect(await sum('redis_patterns.cache.loader.duration')).toBe(1);
  });

  it('counts every rate-limit decision by outcome and limiter, and times a sample of them', async () => {
    const limiter = app.get(RateLimiterService);
    const policy = { algorithm: 'fixed-window', limit: 2, windowMs: 60_000 } as const;
    for (let i = 0; i < 3; i++) await limiter.consume('user-42', policy);
    const attributes = { limiter: 'RateLimiterService.consume' };
    expect(await sum('redis_patterns.rate_limit.decisions', { ...attributes, outcome: 'allowed' })).toBe(2);
    expect(await sum('redis_patterns.rate_limit.decisions', { ...attributes, outcome: 'denied' })).toBe(1);
    // Durations are a sample: the first of every 8 decisions of each limiter and outcome.
    expect(await sum('redis_patterns.rate_limit.decision.duration', { ...attributes, outcome: 'allowed' })).toBe(1);
    expect(await sum('redis_patterns.rate_limit.decision.duration', { ...attributes, outcome: 'denied' })).toBe(1);
    const generous = { algorithm: 'fixed-window', limit: 100, windowMs: 60_000 } as const;
    for (let i = 0; i < 8; i++) await limiter.consume('user-43', generous);
    expect(await sum('redis_patterns.rate_limit.decisions', { ...attributes, outcome: 'allowed' })).toBe(10);
    // The 9th allowed decision was the next one sampled.
    expect(await sum('redis_patterns.rate_limit.decision.duration', { ...attributes, outcome: 'allowed' })).toBe(2);
  });

  it('counts lock acquisitions by outcome, hold times, extensions and losses', async () => {
    const locks = app.get(LockService);
    const held = (await locks.tryAcquire('otel-job', { ttlMs: 5000 }))!;
    expect(await locks.tryAcquire('otel-job', { ttlMs: 5000 })).toBeNull();
    await held.extend(5000);
    await held.release();
    expect(await sum('redis_patterns.lock.acquisitions', { outcome: 'acquired' })).toBe(1);
    expect(await sum('redis_patterns.lock.acquisitions', { outcome: 'contention' })).toBe(1);
    expect(await sum('redis_patterns.lock.wait.duration')).toBe(2);
    expect(await sum('redis_patterns.lock.hold.duration')).toBe(1);
    expect(await sum('redis_patterns.lock.extensions')).toBe(1);

    const keys = inspectKeys(backend, app);
    try {
      await locks.using(
        'otel-lost',
        async (signal, lock) => {
          await keys.del(lock.keys.lease); // another party removed it: the next extension finds it gone
          await waitFor(() => signal.aborted, 5000);
        },
        { ttlMs: 300 },
      );
    } finally {
      keys.close();
    }
    expect(await sum('redis_patterns.lock.losses')).toBe(1);
  });

  it('records durations in second-scaled buckets, so a sub-millisecond p99 can be read from a histogram', async () => {
    const { resourceMetrics } = await metered.reader.collect();
    const scope = resourceMetrics.scopeMetrics.find((s) => s.scope.name === 'nestjs-redis-patterns');
    const wait = scope?.metrics.find((m) => m.descriptor.name === 'redis_patterns.lock.wait.duration');
    const point = wait?.dataPoints[0] as DataPoint<Histogram> | undefined;
    // The SDK's defaults start 0, 5, 10: every Redis-backed wait would land in one bucket.
    expect(point?.value.buckets.boundaries.slice(0, 4)).toEqual([0.0001, 0.00025, 0.0005, 0.001]);
    expect(point?.value.buckets.counts.slice(0, 8).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
  });

  it('counts pub/sub messages published and received, and handler errors', async () => {
    const pubsub = app.get(PubSubService);
    const subscription = await pubsub.subscribe('otel-news', (message) => {
      if (message === 'bad') throw new Error('handler failure');
    });
    await pubsub.publish('otel-news', 'good');
    await pubsub.publish('otel-news', 'bad');
    await waitFor(async () => (await sum('redis_patterns.pubsub.handler.errors')) === 1, 5000);
    expect(await sum('redis_patterns.pubsub.messages', { operation: 'publish' })).toBe(2);
    expect(await sum('redis_patterns.pubsub.messages', { operation: 'receive' })).toBe(2);
    await subscription.unsubscribe();
  });

  it('counts idempotent calls by outcome: ran, replayed, key reused, conflict', async () => {
    const idempotency = app.get(IdempotencyService);
    let runs = 0;
    const work = async () => ++runs;
    await idempotency.execute('otel-payment', work, { fingerprint: 'a' });
    await idempotency.execute('otel-payment', work, { fingerprint: 'a' });
    await expect(idempotency.execute('otel-payment', work, { fingerprint: 'b' })).rejects.toThrow();
    let release!: () => void;
    const first = idempotency.execute('otel-slow', () => new Promise<number>((resolve) => (release = () => resolve(1))));
    await waitFor(() => release !== undefined, 5000);
    await expect(idempotency.execute('otel-slow', work, { onConcurrent: 'reject' })).rejects.toThrow();
    release();
    await first;
    expect(runs).toBe(1);
    expect(await sum('redis_patterns.idempotency.calls', { outcome: 'ran' })).toBe(2);
    expect(await sum('redis_patterns.idempotency.calls', { outcome: 'replayed' })).toBe(1);
    expect(await sum('redis_patterns.idempotency.calls', { outcome: 'key_reused' })).toBe(1);
    expect(await sum('redis_patterns.idempotency.calls', { outcome: 'conflict' })).toBe(1);
  });

  it('keeps attributes low-cardinality: no key, resource or identity in any data point', async () => {
    const { resourceMetrics } = await metered.reader.collect();
    const all = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics.flatMap((m) => m.dataPoints as Array<DataPoint<unknown>>));
    expect(all.length).toBeGreaterThan(5);
    for (const point of all) {
      for (const [name, value] of Object.entries(point.attributes)) {
        expect(ALLOWED_ATTRIBUTES.has(name)).toBe(true);
        expect(String(value)).not.toMatch(/otel-|user-42/);
      }
    }
  });
});

describe('OpenTelemetry metrics of stream consumers (standalone)', () => {
  const metered = withMeteredApp('standalone');

  it('counts entries by outcome (acked, failed, dead-lettered) with stream and group, and times the handler', async () => {
    const streams = metered.app.get(StreamsService);
    for (const n of [1, 2, 3]) await streams.add('otel-orders', { n: String(n) });
    const consumer = streams.consume({
      stream: 'otel-orders',
      group: 'billing',
      blockMs: 50,
      maxDeliveries: 1,
      handler: (message) => {
        if (message.fields.n === '2') throw new Error('cannot bill');
      },
    });
    try {
      const names = { stream: 'otel-orders', group: 'billing' };
      await waitFor(async () => (await metered.sum('redis_patterns.stream.entries', { ...names, outcome: 'dead_lettered' })) === 1, 5000);
      expect(await metered.sum('redis_patterns.stream.entries', { ...names, outcome: 'acked' })).toBe(2);
      expect(await metered.sum('redis_patterns.stream.entries', { ...names, outcome: 'failed' })).toBe(1);
      expect(await metered.sum('redis_patterns.stream.handler.duration', names)).toBe(3);
    } finally {
      await consumer.stop();
    }
  });
});

describe('OpenTelemetry gauges of consumer groups (standalone)', () => {
  const metered = withMeteredApp('standalone');

  it('reports the lag and the pending entries of each running consumer group when a reader collects', async () => {
    const streams = metered.app.get(StreamsService);
    for (const n of [1, 2, 3, 4, 5]) await streams.add('otel-backlog', { n: String(n) });
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let started = 0;
    const consumer = streams.consume({
      stream: 'otel-backlog',
      group: 'slow',
      batchSize: 1,
      blockMs: 50,
      handler: async () => {
        started++;
        await gate;
      },
    });
    try {
      await waitFor(() => started === 1, 5000);
      const names = { stream: 'otel-backlog', group: 'slow' };
      // One entry delivered and held by the handler; four never delivered.
      await waitFor(async () => (await metered.sum('redis_patterns.stream.consumer.pending', names)) === 1, 5000);
      expect(await metered.sum('redis_patterns.stream.consumer.lag', names)).toBe(4);
    } finally {
      open();
      await consumer.stop();
    }
  });
});

describe('OpenTelemetry metrics of write-behind queues (standalone)', () => {
  const metered = withMeteredApp('standalone', () => ({ writeBehind: { delayMs: 20, retryDelayMs: 20, maxAttempts: 2 } }));

  it('counts changes by outcome per queue, times the flush lag and gauges what is pending', async () => {
    const writeBehind = metered.app.get(WriteBehindService);
    let failing = true;
    const saved: string[] = [];
    writeBehind.registerWriter('otel-carts', (changes) => {
      if (failing) throw new Error('database unavailable');
      saved.push(...changes.map((change) => change.key));
    });
    await writeBehind.write('otel-carts', 'cart:1', { items: 1 });
    const queue = { queue: 'otel-carts' };
    expect(await metered.sum('redis_patterns.write_behind.pending', queue)).toBe(1);
    await waitFor(
      async () => (await metered.sum('redis_patterns.write_behind.changes', { ...queue, outcome: 'dead_lettered' })) === 1,
      5000,
    );
    expect(await metered.sum('redis_patterns.write_behind.changes', { ...queue, outcome: 'retried' })).toBe(2);
    failing = false;
    await writeBehind.write('otel-carts', 'cart:2', { items: 2 });
    await waitFor(() => saved.includes('cart:2'), 5000);
    await waitFor(async () => (await metered.sum('redis_patterns.write_behind.changes', { ...queue, outcome: 'flushed' })) === 1, 5000);
    expect(await metered.sum('redis_patterns.write_behind.flush.lag', queue)).toBe(1);
    await waitFor(async () => (await metered.sum('redis_patterns.write_behind.pending', queue)) === 0, 5000);
  });
});

describe('OpenTelemetry metrics of connections (standalone)', () => {
  const metered = withMeteredApp('standalone');

  it('counts state changes and reconnects of a connection by its configured name', async () => {
    const ready = { connection: 'default', state: 'ready' };
    expect(await metered.sum('redis_patterns.connection.state_changes', ready)).toBe(1);
    const client = metered.app.get(RedisConnections).get();
    const id = String(await client.call('CLIENT', 'ID'));
    const admin = rawClient('standalone');
    try {
      await admin.call('CLIENT', 'KILL', 'ID', id);
    } finally {
      admin.disconnect();
    }
    await waitFor(async () => (await metered.sum('redis_patterns.connection.state_changes', ready)) === 2, 5000);
    expect(await metered.sum('redis_patterns.connection.state_changes', { connection: 'default', state: 'closed' })).toBe(1);
    expect(await metered.sum('redis_patterns.connection.reconnects', { connection: 'default' })).toBeGreaterThanOrEqual(1);
  });
});

describe('OpenTelemetry count of commands timed out (a private server, paused)', () => {
  let server: RedisServerProcess;
  beforeAll(async () => {
    server = await privateServer();
  });
  afterAll(() => server?.stop());
  const metered = withMeteredApp('standalone', () => ({ connection: server.url, commandTimeoutMs: 100 }));

  it('counts the commands that got no reply within commandTimeoutMs, by connection', async () => {
    const admin = new Redis(server.url);
    try {
      await admin.call('CLIENT', 'PAUSE', '600', 'ALL');
      // The cache fails open: the read answers "not cached" once its command times out.
      expect(await metered.app.get(CacheService).get('during-pause')).toBeUndefined();
    } finally {
      admin.disconnect();
    }
    expect(await metered.sum('redis_patterns.connection.command_timeouts', { connection: 'default' })).toBeGreaterThanOrEqual(1);
  });
});

describe('OpenTelemetry observations of a closed application', () => {
  it('stop calling back once removed (what services do when the application closes)', async () => {
    const reader = new CollectingReader();
    const provider = new MeterProvider({ readers: [reader] });
    metrics.setGlobalMeterProvider(provider);
    try {
      let calls = 0;
      const observation = libraryMeter().observableGauge('redis_patterns.test.gauge', 'a test gauge', '{item}', async (observe) => {
        calls++;
        observe(1, {});
      });
      await reader.collect();
      await reader.collect();
      expect(calls).toBe(2);
      observation.remove();
      await reader.collect();
      expect(calls).toBe(2);
    } finally {
      metrics.disable();
      await provider.shutdown();
    }
  });
});
