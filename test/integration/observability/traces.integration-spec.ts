import { Injectable, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { context, propagation, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  AlwaysOffSampler,
  InMemorySpanExporter,
  type ReadableSpan,
  type Sampler,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { Cluster, Redis } from 'ioredis';
import {
  CacheService,
  InvalidOptionsError,
  LockService,
  RedisConnections,
  RedisPatternsModule,
  type RedisPatternsModuleOptions,
  WithLock,
  WriteBehindService,
} from 'nestjs-redis-patterns';
import { OnRedisMessage, PubSubService, type StreamMessage, StreamsService } from 'nestjs-redis-patterns/messaging';
import { libraryTracer } from '../../../libs/redis-patterns/src/core/telemetry/tracing';
import { MemoryPubSubStore } from '../../../libs/redis-patterns/src/messaging/memory/memory-pubsub.store';
import { PubSubRuntime } from '../../../libs/redis-patterns/src/messaging/pubsub.runtime';
import { type BackendName, connectionOf, inspectKeys } from '../../support/backends';
import { connectionFor, rawClient, type TopologyName, uniquePrefix, waitFor } from '../../support/redis-env';

const SCOPE = 'nestjs-redis-patterns';
const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/;

@Injectable()
class Billing {
  runs = 0;

  @WithLock({ resource: (invoice: string) => `invoice:${invoice}`, ttlMs: 2000 })
  async settle(invoice: string): Promise<string> {
    this.runs++;
    await trace.getTracer('test').startActiveSpan('settle-work', async (span) => span.end());
    return invoice;
  }
}

@Injectable()
class OrderEvents {
  readonly received: Array<{ message: unknown; channel: string }> = [];

  @OnRedisMessage('trace-orders:*')
  onOrder(message: unknown, channel: string): void {
    this.received.push({ message, channel });
  }
}

/**
 * Registers an SDK for the enclosing describe (before its application is created): a TracerProvider exporting to
 * memory through a SimpleSpanProcessor, the AsyncLocalStorage context manager and the W3C propagator.
 */
function withTracing(sampler?: Sampler) {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })], sampler });
  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    trace.setGlobalTracerProvider(provider);
  });
  afterAll(async () => {
    trace.disable();
    context.disable();
    propagation.disable();
    await provider.shutdown();
  });
  return {
    exporter,
    /** The library's finished spans named `name`. */
    spans: (name: string): ReadableSpan[] =>
      exporter.getFinishedSpans().filter((span) => span.instrumentationScope.name === SCOPE && span.name === name),
    /** Runs `fn` inside a span of the test's own (the caller's span), ended when `fn` settles. */
    inSpan: <T>(name: string, fn: (span: Span) => Promise<T>): Promise<T> =>
      trace.getTracer('test').startActiveSpan(name, async (span) => {
        try {
          return await fn(span);
        } finally {
          span.end();
        }
      }),
  };
}

async function startApp(backend: BackendName, options: Partial<RedisPatternsModuleOptions> = {}): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({
    imports: [RedisPatternsModule.forRoot({ connection: connectionOf(backend), keyPrefix: uniquePrefix(`tr-${backend}`), ...options })],
    providers: [Billing, OrderEvents],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.init();
  return app;
}

/** Every raw message published on `channel` (the user-facing name), as another subscriber of the server sees it. */
async function rawSubscriber(backend: BackendName, app: INestApplication, channel: string) {
  const raw = app.get(PubSubRuntime).names.channel(channel);
  const messages: string[] = [];
  if (backend === 'memory') {
    const store = new MemoryPubSubStore(app.get(RedisConnections).memory!);
    store.listen({ message: (_subscription, _channel, message) => messages.push(message), resubscribed: () => undefined });
    await store.subscribe(raw);
    return { messages, close: () => store.close() };
  }
  const client = backend === 'standalone' ? new Redis(connectionFor('standalone') as string) : (rawClient(backend) as Cluster);
  client.on('message', (_channel: string, message: string) => messages.push(message));
  await client.subscribe(raw);
  return { messages, close: async () => client.disconnect() };
}

/** The fields of a raw stream entry, read with XRANGE by a client of the test's own. */
async function rawEntry(topology: TopologyName, key: string, id: string): Promise<Record<string, string>> {
  const client = rawClient(topology);
  try {
    const [[, flat]] = await client.xrange(key, id, id);
    return Object.fromEntries(flat.flatMap((value, i) => (i % 2 === 0 ? [[value, flat[i + 1]]] : [])));
  } finally {
    client.disconnect();
  }
}

/** Every attribute value of a span and of its events: what must never hold a key, a resource or a channel id. */
function recordedValues(span: ReadableSpan): string[] {
  return [
    span.name,
    ...Object.values(span.attributes),
    ...span.events.flatMap((event) => [event.name, ...Object.values(event.attributes ?? {})]),
  ].map(String);
}

describe.each<BackendName>(['standalone', 'memory'])('Traces of the cache and locks on %s', (backend) => {
  const tracing = withTracing();
  let app: INestApplication;
  beforeAll(async () => {
    app = await startApp(backend);
  });
  afterAll(() => app?.close());
  beforeEach(() => tracing.exporter.reset());

  it('runs the loader of a miss in a child span of the caller, and never touches the tracer on a hit', async () => {
    const cache = app.get(CacheService);
    await tracing.inSpan('request', async (request) => {
      expect(await cache.wrap('user-42', async () => ({ name: 'Ada' }), { ttl: 60 })).toEqual({ name: 'Ada' });
      expect(await cache.wrap('user-42', async () => ({ name: 'other' }), { ttl: 60 })).toEqual({ name: 'Ada' });
      const [load] = tracing.spans('redis_patterns.cache.load');
      expect(tracing.spans('redis_patterns.cache.load')).toHaveLength(1);
      expect(load.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
      expect(load.kind).toBe(SpanKind.INTERNAL);
      expect(load.attributes).toEqual({ 'redis_patterns.cache.refresh': false });
      expect(load.status.code).toBe(SpanStatusCode.UNSET);
    });
    // Outside any trace a miss adds no root span of its own.
    await cache.wrap('user-43', async () => 1, { ttl: 60 });
    expect(tracing.spans('redis_patterns.cache.load')).toHaveLength(1);
  });

  it('records a failing loader on its span, and marks background refreshes', async () => {
    const cache = app.get(CacheService);
    await tracing.inSpan('request', async () => {
      await expect(cache.wrap('user-44', () => Promise.reject(new TypeError('source down')), { ttl: 60 })).rejects.toThrow('source down');
    });
    const [failed] = tracing.spans('redis_patterns.cache.load');
    expect(failed.status).toEqual({ code: SpanStatusCode.ERROR, message: 'source down' });
    expect(failed.attributes['error.type']).toBe('TypeError');
    expect(failed.events.map((event) => event.name)).toEqual(['exception']);

    tracing.exporter.reset();
    let loads = 0;
    const loader = async () => ++loads;
    await tracing.inSpan('request', async (request) => {
      await cache.wrap('user-45', loader, { ttl: 0.2, staleTtl: 30 });
      await waitFor(async () => (await cache.wrapWithStatus('user-45', loader, { ttl: 0.2, staleTtl: 30 })).status === 'stale', 5000);
      await waitFor(() => tracing.spans('redis_patterns.cache.load').length === 2, 5000);
      const refresh = tracing.spans('redis_patterns.cache.load')[1];
      expect(refresh.attributes).toEqual({ 'redis_patterns.cache.refresh': true });
      expect(refresh.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    });
  });

  it('covers the work of using() with a hold span, child of the caller, its own spans inside it', async () => {
    const locks = app.get(LockService);
    await tracing.inSpan('request', async (request) => {
      await locks.using('invoice:42', () => trace.getTracer('test').startActiveSpan('work', async (span) => span.end()), { ttlMs: 2000 });
      const [hold] = tracing.spans('redis_patterns.lock.hold');
      const work = tracing.exporter.getFinishedSpans().find((span) => span.name === 'work')!;
      expect(hold.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
      expect(work.parentSpanContext?.spanId).toBe(hold.spanContext().spanId);
      expect(hold.attributes).toEqual({ 'redis_patterns.lock.outcome': 'released' });
      expect(hold.status.code).toBe(SpanStatusCode.UNSET);
    });
    await locks.using('invoice:43', () => undefined, { ttlMs: 2000 });
    expect(tracing.spans('redis_patterns.lock.hold')).toHaveLength(1);
  });

  it('covers a @WithLock provider method with a hold span named by its class and method', async () => {
    const billing = app.get(Billing);
    const request = await tracing.inSpan('request', async (span) => {
      expect(await billing.settle('inv-7')).toBe('inv-7');
      return span.spanContext();
    });
    const [hold] = tracing.spans('redis_patterns.lock.hold');
    expect(hold.parentSpanContext?.spanId).toBe(request.spanId);
    const work = tracing.exporter.getFinishedSpans().find((span) => span.name === 'settle-work')!;
    expect(hold.attributes).toEqual({ 'code.function.name': 'Billing.settle', 'redis_patterns.lock.outcome': 'released' });
    expect(work.parentSpanContext?.spanId).toBe(hold.spanContext().spanId);
  });

  it('records a lock lost while its work ran: an event, status ERROR, outcome lost — never the resource', async () => {
    const locks = app.get(LockService);
    const keys = inspectKeys(backend, app);
    try {
      await tracing
        .inSpan('request', () =>
          locks.using(
            'invoice:99',
            async (signal, lock) => {
              await keys.del(lock.keys.lease);
              await waitFor(() => signal.aborted, 5000);
              signal.throwIfAborted();
            },
            { ttlMs: 300 },
          ),
        )
        .catch(() => undefined);
    } finally {
      keys.close();
    }
    const [hold] = tracing.spans('redis_patterns.lock.hold');
    expect(hold.attributes['redis_patterns.lock.outcome']).toBe('lost');
    expect(hold.events.map((event) => event.name)).toEqual(['redis_patterns.lock.lost', 'exception']);
    expect(hold.status.code).toBe(SpanStatusCode.ERROR);
    expect(hold.attributes['error.type']).toBe('LockLostError');
    for (const value of recordedValues(hold)) expect(value).not.toMatch(/invoice/);
  });
});

describe.each<BackendName>(['standalone', 'cluster', 'memory'])('Traces of pub/sub on %s', (backend) => {
  const tracing = withTracing();
  let app: INestApplication;
  beforeAll(async () => {
    app = await startApp(backend);
  });
  afterAll(() => app?.close());
  beforeEach(() => tracing.exporter.reset());

  it('continues the publisher trace in a consumer span per handler; handlers get the message alone', async () => {
    const pubsub = app.get(PubSubService);
    const received: unknown[] = [];
    const subscription = await pubsub.subscribe('trace-news', (message) => void received.push(message));
    const raw = await rawSubscriber(backend, app, 'trace-news');
    try {
      const producer = await tracing.inSpan('publish-news', async (span) => {
        await pubsub.publish('trace-news', { headline: 'traced' });
        return span.spanContext();
      });
      await waitFor(() => received.length === 1 && tracing.spans('process').length === 1 && raw.messages.length === 1, 5000);
      expect(received).toEqual([{ headline: 'traced' }]);
      const [process] = tracing.spans('process');
      expect(process.kind).toBe(SpanKind.CONSUMER);
      expect(process.spanContext().traceId).toBe(producer.traceId);
      expect(process.parentSpanContext?.spanId).toBe(producer.spanId);
      expect(process.links.map((link) => link.context.spanId)).toEqual([producer.spanId]);
      expect(process.attributes).toEqual({
        'messaging.system': 'redis',
        'messaging.operation.type': 'process',
        'messaging.operation.name': 'process',
      });
      // The wire format: an RFC 7464 JSON text sequence of the trace context and the message.
      const texts = raw.messages[0].split('\u001e').slice(1);
      expect(raw.messages[0].startsWith('\u001e')).toBe(true);
      expect(texts).toHaveLength(2);
      expect(JSON.parse(texts[0]).traceparent).toMatch(TRACEPARENT);
      expect(JSON.parse(texts[1])).toEqual({ headline: 'traced' });

      // Without an active span, the message is the plain JSON it always was.
      await pubsub.publish('trace-news', { headline: 'untraced' });
      await waitFor(() => received.length === 2 && raw.messages.length === 2, 5000);
      expect(raw.messages[1]).toBe('{"headline":"untraced"}');
      expect(received[1]).toEqual({ headline: 'untraced' });
    } finally {
      await subscription.unsubscribe();
      await raw.close();
    }
  });

  it('names the spans of an @OnRedisMessage method after its pattern', async () => {
    const events = app.get(OrderEvents);
    const producer = await tracing.inSpan('publish-order', async (span) => {
      await app.get(PubSubService).publish('trace-orders:42', { id: 42 });
      return span.spanContext();
    });
    await waitFor(() => events.received.length > 0 && tracing.spans('process trace-orders:*').length === 1, 5000);
    expect(events.received.at(-1)).toEqual({ message: { id: 42 }, channel: 'trace-orders:42' });
    const [process] = tracing.spans('process trace-orders:*');
    expect(process.parentSpanContext?.spanId).toBe(producer.spanId);
    expect(process.attributes['messaging.destination.template']).toBe('trace-orders:*');
    for (const value of recordedValues(process)) expect(value).not.toMatch(/42/);
  });

  it('records a handler that throws on its span', async () => {
    const pubsub = app.get(PubSubService);
    const subscription = await pubsub.subscribe('trace-failing', () => {
      throw new RangeError('bad message');
    });
    try {
      await pubsub.publish('trace-failing', 1);
      await waitFor(() => tracing.spans('process').length === 1, 5000);
      const [process] = tracing.spans('process');
      expect(process.status).toEqual({ code: SpanStatusCode.ERROR, message: 'bad message' });
      // Published outside any span: a trace of its own.
      expect(process.parentSpanContext).toBeUndefined();
      expect(process.links).toEqual([]);
    } finally {
      await subscription.unsubscribe();
    }
  });
});

describe.each<TopologyName>(['standalone', 'cluster'])('Traces of Streams on %s', (topology) => {
  const tracing = withTracing();
  let app: INestApplication;
  beforeAll(async () => {
    app = await startApp(topology);
  });
  afterAll(() => app?.close());
  beforeEach(() => tracing.exporter.reset());

  it('writes the producer span context into the entry; the consumer span continues it, the handler never sees it', async () => {
    const streams = app.get(StreamsService);
    const { id, producer } = await tracing.inSpan('place-order', async (span) => ({
      id: await streams.add('trace-orders', { order: '42' }),
      producer: span.spanContext(),
    }));
    const entry = await rawEntry(topology, streams.keyOf('trace-orders'), id);
    expect(entry.order).toBe('42');
    expect(entry.traceparent).toBe(`00-${producer.traceId}-${producer.spanId}-01`);

    const handled: StreamMessage[] = [];
    const consumer = streams.consume({
      stream: 'trace-orders',
      group: 'billing',
      blockMs: 50,
      handler: (message) => void handled.push(message),
    });
    try {
      await waitFor(() => tracing.spans('process trace-orders').length === 1, 5000);
    } finally {
      await consumer.stop();
    }
    expect(handled.map((message) => message.fields)).toEqual([{ order: '42' }]);
    const [process] = tracing.spans('process trace-orders');
    expect(process.kind).toBe(SpanKind.CONSUMER);
    expect(process.spanContext().traceId).toBe(producer.traceId);
    expect(process.parentSpanContext?.spanId).toBe(producer.spanId);
    expect(process.links.map((link) => link.context.spanId)).toEqual([producer.spanId]);
    expect(process.attributes).toEqual({
      'messaging.system': 'redis',
      'messaging.operation.type': 'process',
      'messaging.operation.name': 'process',
      'messaging.destination.name': 'trace-orders',
      'messaging.consumer.group.name': 'billing',
      'messaging.message.id': id,
      'redis_patterns.stream.deliveries': 1,
      'redis_patterns.stream.outcome': 'acked',
    });
  });

  it('writes no trace fields without an active span, and starts a trace per entry on the consumer', async () => {
    const streams = app.get(StreamsService);
    const id = await streams.add('trace-plain', { n: '1' });
    expect(await rawEntry(topology, streams.keyOf('trace-plain'), id)).toEqual({ n: '1' });
    const consumer = streams.consume({ stream: 'trace-plain', group: 'g', blockMs: 50, handler: () => undefined });
    try {
      await waitFor(() => tracing.spans('process trace-plain').length === 1, 5000);
    } finally {
      await consumer.stop();
    }
    const [process] = tracing.spans('process trace-plain');
    expect(process.parentSpanContext).toBeUndefined();
    expect(process.links).toEqual([]);
  });

  it('keeps the trace through dead-lettering and replay', async () => {
    const streams = app.get(StreamsService);
    const { producer } = await tracing.inSpan('produce', async (span) => {
      await streams.add('trace-poison', { n: '1' });
      return { producer: span.spanContext() };
    });
    const consumer = streams.consume({
      stream: 'trace-poison',
      group: 'g',
      blockMs: 50,
      maxDeliveries: 1,
      handler: () => {
        throw new Error('cannot handle');
      },
    });
    let process!: ReadableSpan;
    try {
      await waitFor(() => tracing.spans('process trace-poison').length === 1, 5000);
      [process] = tracing.spans('process trace-poison');
      const client = rawClient(topology);
      try {
        await waitFor(async () => (await client.xlen(streams.keyOf('trace-poison.dlq'))) === 1, 5000);
        const [[deadId]] = await client.xrange(streams.keyOf('trace-poison.dlq'), '-', '+');
        const letter = await rawEntry(topology, streams.keyOf('trace-poison.dlq'), deadId);
        // The original fields keep the producer's context; the dead letter carries the context of the span that gave up.
        expect(JSON.parse(letter.fields)).toEqual({ n: '1', traceparent: `00-${producer.traceId}-${producer.spanId}-01` });
        expect(letter.traceparent).toBe(`00-${producer.traceId}-${process.spanContext().spanId}-01`);
      } finally {
        client.disconnect();
      }
    } finally {
      await consumer.stop();
    }
    expect(process.attributes['redis_patterns.stream.outcome']).toBe('dead_lettered');
    expect(process.status).toEqual({ code: SpanStatusCode.ERROR, message: 'cannot handle' });

    expect(await streams.replayDeadLetters('trace-poison')).toEqual({ replayed: 1, skipped: [] });
    const client = rawClient(topology);
    try {
      const entries = await client.xrange(streams.keyOf('trace-poison'), '-', '+');
      const replayed = Object.fromEntries(entries[1][1].flatMap((value, i, flat) => (i % 2 === 0 ? [[value, flat[i + 1]]] : [])));
      expect(replayed).toEqual({ n: '1', traceparent: `00-${producer.traceId}-${producer.spanId}-01` });
    } finally {
      client.disconnect();
    }
  });
});

describe.each<BackendName>(['standalone', 'memory'])('Traces of write-behind flushes on %s', (backend) => {
  const tracing = withTracing();
  let app: INestApplication;
  beforeAll(async () => {
    app = await startApp(backend, { writeBehind: { delayMs: 20, retryDelayMs: 20 } });
  });
  afterAll(() => app?.close());

  it('runs each writer call in a span of its own trace, with the queue and the number of changes, failed when it throws', async () => {
    const writeBehind = app.get(WriteBehindService);
    let failures = 1;
    const saved: string[] = [];
    writeBehind.registerWriter('trace-carts', (changes) => {
      if (failures-- > 0) throw new Error('database unavailable');
      saved.push(...changes.map((change) => change.key));
    });
    // Written inside a request's span: the flush serves many requests and is not a child of this one.
    await tracing.inSpan('request', () => writeBehind.write('trace-carts', 'cart:1', { items: 1 }));
    await waitFor(() => saved.length === 1, 5000);
    await waitFor(() => tracing.spans('redis_patterns.write_behind.flush').length === 2, 5000);
    const [failed, flushed] = tracing.spans('redis_patterns.write_behind.flush');
    expect(failed.status.code).toBe(SpanStatusCode.ERROR);
    expect(flushed.status.code).not.toBe(SpanStatusCode.ERROR);
    expect(flushed.attributes).toMatchObject({
      'redis_patterns.write_behind.queue': 'trace-carts',
      'redis_patterns.write_behind.changes': 1,
    });
    expect(flushed.parentSpanContext).toBeUndefined();
    const request = tracing.exporter.getFinishedSpans().find((span) => span.name === 'request')!;
    expect(flushed.spanContext().traceId).not.toBe(request.spanContext().traceId);
  });
});

describe('pubsub.propagateTraceContext: false (standalone)', () => {
  const tracing = withTracing();
  let app: INestApplication;
  beforeAll(async () => {
    app = await startApp('standalone', { pubsub: { propagateTraceContext: false } });
  });
  afterAll(() => app?.close());

  it('publishes plain JSON inside a span; the subscriber span starts its own trace', async () => {
    const pubsub = app.get(PubSubService);
    const received: unknown[] = [];
    const subscription = await pubsub.subscribe('trace-interop', (message) => void received.push(message));
    const raw = await rawSubscriber('standalone', app, 'trace-interop');
    try {
      await tracing.inSpan('publish', () => pubsub.publish('trace-interop', { n: 1 }));
      await waitFor(() => received.length === 1 && raw.messages.length === 1 && tracing.spans('process').length === 1, 5000);
      expect(raw.messages).toEqual(['{"n":1}']);
      expect(tracing.spans('process')[0].parentSpanContext).toBeUndefined();
    } finally {
      await subscription.unsubscribe();
      await raw.close();
    }
  });

  it('fails at startup, naming the option, on a value that is not a boolean', async () => {
    await expect(startApp('memory', { pubsub: { propagateTraceContext: 'no' as unknown as boolean } })).rejects.toThrow(
      InvalidOptionsError,
    );
    await expect(startApp('memory', { pubsub: { propagateTraceContext: 1 as unknown as boolean } })).rejects.toThrow(
      /pubsub\.propagateTraceContext/,
    );
  });
});

describe('Without an SDK registered (standalone)', () => {
  let app: INestApplication;
  beforeAll(async () => {
    app = await startApp('standalone');
  });
  afterAll(() => app?.close());

  it('caches, locks and messages as usual, writing no trace context', async () => {
    expect(await app.get(CacheService).wrap('plain', async () => 'v', { ttl: 60 })).toBe('v');
    expect(await app.get(LockService).using('plain', () => 'held', { ttlMs: 1000 })).toBe('held');
    expect(await app.get(Billing).settle('inv-1')).toBe('inv-1');

    const streams = app.get(StreamsService);
    const id = await streams.add('plain-stream', { n: '1' });
    expect(await rawEntry('standalone', streams.keyOf('plain-stream'), id)).toEqual({ n: '1' });

    const pubsub = app.get(PubSubService);
    const received: unknown[] = [];
    const subscription = await pubsub.subscribe('plain-news', (message) => void received.push(message));
    const raw = await rawSubscriber('standalone', app, 'plain-news');
    try {
      await pubsub.publish('plain-news', { n: 1 });
      await waitFor(() => received.length === 1 && raw.messages.length === 1, 5000);
      expect(raw.messages).toEqual(['{"n":1}']);
    } finally {
      await raw.close();
      await subscription.unsubscribe();
    }
  });

  it('still strips the trace context a traced publisher or producer sent', async () => {
    const pubsub = app.get(PubSubService);
    const received: unknown[] = [];
    const subscription = await pubsub.subscribe('plain-traced', (message) => void received.push(message));
    const client = rawClient('standalone');
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    try {
      const raw = app.get(PubSubRuntime).names.channel('plain-traced');
      await client.publish(raw, `\u001e{"traceparent":"${traceparent}"}\n\u001e{"n":2}\n`);
      await waitFor(() => received.length === 1, 5000);
      expect(received).toEqual([{ n: 2 }]);

      const streams = app.get(StreamsService);
      await client.xadd(streams.keyOf('plain-traced'), '*', 'n', '3', 'traceparent', traceparent, 'tracestate', 'a=1');
      const handled: StreamMessage[] = [];
      const consumer = streams.consume({ stream: 'plain-traced', group: 'g', blockMs: 50, handler: (m) => void handled.push(m) });
      try {
        await waitFor(() => handled.length === 1, 5000);
      } finally {
        await consumer.stop();
      }
      expect(handled[0].fields).toEqual({ n: '3' });
    } finally {
      client.disconnect();
      await subscription.unsubscribe();
    }
  });
});

describe('When every tracing call is a no-op (an SDK that samples nothing)', () => {
  const tracing = withTracing(new AlwaysOffSampler());
  let app: INestApplication;
  beforeAll(async () => {
    app = await startApp('standalone');
  });
  afterAll(() => app?.close());

  it('works as usual, records nothing, and still passes the (unsampled) trace context on', async () => {
    expect(await tracing.inSpan('request', () => app.get(CacheService).wrap('off', async () => 'v', { ttl: 60 }))).toBe('v');
    expect(await tracing.inSpan('request', () => app.get(Billing).settle('inv-2'))).toBe('inv-2');
    const streams = app.get(StreamsService);
    const id = await tracing.inSpan('request', () => streams.add('off-stream', { n: '1' }));
    const entry = await rawEntry('standalone', streams.keyOf('off-stream'), id);
    // The sampling decision travels with the context: downstream services do not sample this trace either.
    expect(entry.traceparent).toMatch(/-00$/);
    const handled: StreamMessage[] = [];
    const consumer = streams.consume({ stream: 'off-stream', group: 'g', blockMs: 50, handler: (m) => void handled.push(m) });
    try {
      await waitFor(() => handled.length === 1, 5000);
    } finally {
      await consumer.stop();
    }
    expect(handled[0].fields).toEqual({ n: '1' });
    expect(tracing.exporter.getFinishedSpans()).toEqual([]);
  });
});

describe('Without @opentelemetry/api installed', () => {
  afterAll(() => trace.disable());

  it('leaves tracing off even with a TracerProvider registered: work runs as it is, nothing is injected', () => {
    trace.setGlobalTracerProvider(new TracerProvider());
    // The control: with the API installed, this provider makes tracing live.
    expect(libraryTracer().live).toBe(true);
    let tracing!: typeof import('../../../libs/redis-patterns/src/core/telemetry/tracing');
    jest.isolateModules(() => {
      jest.doMock('@opentelemetry/api', () => {
        throw new Error("Cannot find module '@opentelemetry/api'");
      });
      tracing = require('../../../libs/redis-patterns/src/core/telemetry/tracing');
    });
    const tracer = tracing.libraryTracer();
    expect(tracer.live).toBe(false);
    expect(tracer.startChild('x')).toBeUndefined();
    expect(tracer.inject()).toBeUndefined();
    expect(tracer.detached(() => 7)).toBe(7);
  });
});
