import { Injectable, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Cluster, Redis } from 'ioredis';
import { InvalidArgumentError, RedisPatternsModule } from 'nestjs-redis-patterns';
import { OnRedisMessage, PubSubService } from 'nestjs-redis-patterns/messaging';
import { MemoryKeyspace } from '../../../libs/redis-patterns/src/core/memory/memory-keyspace';
import { MemoryPubSubStore } from '../../../libs/redis-patterns/src/messaging/memory/memory-pubsub.store';
import { PUBSUB_STORE, type PubSubStore } from '../../../libs/redis-patterns/src/messaging/pubsub.store';
import { type BackendName, connectionOf } from '../../support/backends';
import { connectionFor, rawClient, type TopologyName, uniquePrefix, waitFor } from '../../support/redis-env';

@Injectable()
class OrderListener {
  readonly received: Array<{ message: unknown; channel: string }> = [];

  @OnRedisMessage('orders:*')
  onOrder(message: unknown, channel: string): void {
    this.received.push({ message, channel });
  }
}

const TOPOLOGIES: TopologyName[] = ['standalone', 'cluster'];

async function startPubSubApp(backend: BackendName, keyPrefix: string): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({
    imports: [RedisPatternsModule.forRoot({ connection: connectionOf(backend), keyPrefix })],
    providers: [OrderListener],
  }).compile();
  const app = moduleRef.createNestApplication();
  await app.init();
  return app;
}

/**
 * Publishes on a raw channel, around PubSubService: from another client of the server on Redis, through the module's
 * own bus (its store) in memory, where no other client exists.
 */
function rawPublisher(
  backend: BackendName,
  app: INestApplication,
): { publish(channel: string, message: string): Promise<number>; close(): void } {
  if (backend === 'memory') {
    const store = app.get<PubSubStore>(PUBSUB_STORE);
    return { publish: (channel, message) => store.publish(channel, message), close: () => undefined };
  }
  const raw = rawClient(backend);
  return { publish: (channel, message) => raw.publish(channel, message), close: () => raw.disconnect() };
}

describe.each<BackendName>(['memory', ...TOPOLOGIES])('PubSubService on %s', (backend) => {
  let app: INestApplication;
  let pubsub: PubSubService;
  const prefix = uniquePrefix(`ps-${backend}`);
  // PUBLISH counts the subscriptions of the node that took it; on a cluster ours may sit on another node.
  const receivers = (n: number) => (backend === 'cluster' ? [0, n] : [n]);

  beforeAll(async () => {
    app = await startPubSubApp(backend, prefix);
    pubsub = app.get(PubSubService);
  });

  afterAll(async () => {
    await app?.close();
  });

  it('delivers JSON messages in publication order and reports the receiver count', async () => {
    const got: unknown[] = [];
    const sub = await pubsub.subscribe<{ seq: number }>('ticks', (message) => {
      got.push(message.seq);
    });
    const counts = await Promise.all(Array.from({ length: 500 }, (_, seq) => pubsub.publish('ticks', { seq })));
    expect(counts.every((n) => receivers(1).includes(n))).toBe(true);
    await waitFor(
      () => got.length === 500,
      5000,
      () => `500 messages, got ${got.length}`,
    );
    expect(got).toEqual(Array.from({ length: 500 }, (_, seq) => seq));
    await sub.unsubscribe();
  });

  it('counts every receiving subscription, as PUBLISH does: a channel and two matching patterns make three', async () => {
    const got: string[] = [];
    const handle = (name: string) => (_m: unknown, channel: string) => void got.push(`${name} ${channel}`);
    const subs = await Promise.all(
      ['count:me', 'count:*', 'count:?e', 'count:x*'].map((name, i) =>
        i === 0 ? pubsub.subscribe(name, handle(name)) : pubsub.psubscribe(name, handle(name)),
      ),
    );
    expect(receivers(3)).toContain(await pubsub.publish('count:me', 1));
    await waitFor(() => got.length === 3, 5000);
    expect(got.sort()).toEqual(['count:* count:me', 'count:?e count:me', 'count:me count:me']);
    await Promise.all(subs.map((sub) => sub.unsubscribe()));
    expect(await pubsub.publish('count:me', 2)).toBe(0);
  });

  it('uses an escaped channel under the key prefix: <prefix>:pubsub:<channel>', async () => {
    const raw = rawPublisher(backend, app);
    const got: unknown[] = [];
    const sub = await pubsub.subscribe('user:42 events', (message) => {
      got.push(message);
    });
    try {
      // Published by hand on the documented raw channel: the service must receive it.
      await raw.publish(`${prefix}:pubsub:user%3A42%20events`, JSON.stringify({ ok: 1 }));
      await waitFor(() => got.length === 1, 5000);
      expect(got).toEqual([{ ok: 1 }]);
      // A plain-text message from another tool is passed on as the string.
      await raw.publish(`${prefix}:pubsub:user%3A42%20events`, 'not json');
      await waitFor(() => got.length === 2, 5000);
      expect(got[1]).toBe('not json');
    } finally {
      await sub.unsubscribe();
      raw.close();
    }
  });

  it('matches patterns against user-facing names and hands over the real channel', async () => {
    const got: Array<[unknown, string]> = [];
    const sub = await pubsub.psubscribe('chat:room-?:*', (message, channel) => {
      got.push([message, channel]);
    });
    await pubsub.publish('chat:room-1:alice', 'hi');
    await pubsub.publish('chat:room-22:bob', 'no match (two characters)');
    await pubsub.publish('chat:room-2:carol', 'there');
    await waitFor(() => got.length >= 2, 5000);
    await pubsub.publish('chat:room-3:sync', 'end');
    await waitFor(() => got.length >= 3, 5000);
    expect(got).toEqual([
      ['hi', 'chat:room-1:alice'],
      ['there', 'chat:room-2:carol'],
      ['end', 'chat:room-3:sync'],
    ]);
    await sub.unsubscribe();
  });

  it('matches [...] classes and ranges in patterns', async () => {
    const got: string[] = [];
    const sub = await pubsub.psubscribe('grid:[a-c][^0-4]', (_m, channel) => {
      got.push(channel);
    });
    for (const cell of ['a5', 'b4', 'd9', 'c9', 'aa', 'b55']) await pubsub.publish(`grid:${cell}`, cell);
    await pubsub.publish('grid:b7', 'last');
    await waitFor(() => got.includes('grid:b7'), 5000);
    expect(got).toEqual(['grid:a5', 'grid:c9', 'grid:aa', 'grid:b7']);
    await sub.unsubscribe();
  });

  it('delivers the messages of one publisher in the order they were published, across channels', async () => {
    // On a cluster a PUBLISH sent to a random node reaches the subscriber's node over that node's own bus link:
    // without one publishing node, messages published one after the other arrive out of order.
    const got: number[] = [];
    const sub = await pubsub.psubscribe('seq:*', (message) => {
      got.push(message as number);
    });
    const sent = Array.from({ length: 300 }, (_, i) => i);
    await Promise.all(sent.map((i) => pubsub.publish(`seq:${i % 7}`, i)));
    for (const i of sent.slice(0, 50)) await pubsub.publish(`seq:${i % 5}`, 300 + i);
    await waitFor(() => got.length >= 350, 5000);
    expect(got).toEqual([...sent, ...sent.slice(0, 50).map((i) => 300 + i)]);
    await sub.unsubscribe();
  });

  it('a glob character inside a channel name cannot reach pattern subscribers of other channels', async () => {
    const got: string[] = [];
    const sub = await pubsub.psubscribe('a:*', (_m, channel) => {
      got.push(channel);
    });
    // Escaping turns the user's "*" into a literal: publishing to "b*" is the one channel "b*", never "a:*".
    expect(await pubsub.publish('b*', 'x')).toBe(0);
    await pubsub.publish('b', 'x');
    await pubsub.publish('a:1', 'y');
    await waitFor(() => got.length === 1, 5000);
    expect(got).toEqual(['a:1']);
    await sub.unsubscribe();
  });

  it('unsubscribes handlers one by one; the channel stays subscribed while one remains', async () => {
    const first: unknown[] = [];
    const second: unknown[] = [];
    const a = await pubsub.subscribe('shared', (m) => {
      first.push(m);
    });
    const b = await pubsub.subscribe('shared', (m) => {
      second.push(m);
    });
    await pubsub.publish('shared', 1);
    await waitFor(() => first.length === 1 && second.length === 1, 5000);
    await a.unsubscribe();
    await pubsub.publish('shared', 2);
    await waitFor(() => second.length === 2, 5000);
    expect(first).toEqual([1]);
    await b.unsubscribe();
    // A later message of the same publisher on a still-subscribed channel arrives after 3 would have.
    const marks: unknown[] = [];
    const mark = await pubsub.subscribe('shared-mark', (m) => {
      marks.push(m);
    });
    expect(await pubsub.publish('shared', 3)).toBe(0);
    await pubsub.publish('shared-mark', 'after 3');
    await waitFor(() => marks.length === 1, 5000);
    expect(second).toEqual([1, 2]);
    expect(first).toEqual([1]);
    await mark.unsubscribe();
  });

  it('a throwing or slow handler never stops delivery to the others', async () => {
    const fast: number[] = [];
    const slow: number[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const thrower = await pubsub.subscribe<number>('mixed', () => {
      throw new Error('boom');
    });
    const slowSub = await pubsub.subscribe<number>('mixed', async (n) => {
      await gate;
      slow.push(n);
    });
    const fastSub = await pubsub.subscribe<number>('mixed', (n) => {
      fast.push(n);
    });
    for (let i = 0; i < 50; i++) await pubsub.publish('mixed', i);
    await waitFor(
      () => fast.length === 50,
      5000,
      () => `fast handler got ${fast.length}`,
    );
    expect(slow).toEqual([]);
    release();
    await waitFor(() => slow.length === 50, 5000);
    expect(slow).toEqual(fast);
    await Promise.all([thrower.unsubscribe(), slowSub.unsubscribe(), fastSub.unsubscribe()]);
  });

  it('@OnRedisMessage methods are subscribed at bootstrap', async () => {
    const listener = app.get(OrderListener);
    expect(listener.received).toEqual([]);
    await pubsub.publish('orders:created', { id: 7 });
    await waitFor(() => listener.received.length === 1, 5000);
    expect(listener.received).toEqual([{ message: { id: 7 }, channel: 'orders:created' }]);
  });

  it('rejects bad arguments with typed errors', async () => {
    await expect(pubsub.publish('', 1)).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(pubsub.publish('x', undefined)).rejects.toThrow(/message/);
    await expect(pubsub.subscribe('x', 'nope' as never)).rejects.toThrow(/handler/);
  });
});

describe.each(TOPOLOGIES)('PubSubService and the Redis server on %s', (topology) => {
  it('once the last handler of a channel unsubscribes, Redis reports no subscriber of the raw channel', async () => {
    const prefix = uniquePrefix(`ps-numsub-${topology}`);
    const app = await startPubSubApp(topology, prefix);
    const raw = rawClient(topology);
    try {
      const pubsub = app.get(PubSubService);
      const numsub = async () => {
        // Every node, replicas included: a cluster client may hold its subscriber connection on a replica.
        if ('nodes' in raw) await raw.ping();
        const nodes = 'nodes' in raw ? (raw as Cluster).nodes('all') : [raw as Redis];
        const replies = await Promise.all(
          nodes.map((node) => node.pubsub('NUMSUB', `${prefix}:pubsub:shared`) as Promise<[string, number]>),
        );
        return replies.reduce((sum, reply) => sum + Number(reply[1]), 0);
      };
      const a = await pubsub.subscribe('shared', () => undefined);
      const b = await pubsub.subscribe('shared', () => undefined);
      await waitFor(
        async () => (await numsub()) === 1,
        5000,
        () => 'one subscriber connection on the raw channel',
      );
      await a.unsubscribe();
      await b.unsubscribe();
      await waitFor(
        async () => (await numsub()) === 0,
        5000,
        () => 'no subscriber left on the raw channel',
      );
    } finally {
      raw.disconnect();
      await app.close();
    }
  });
});

describe('PubSubService shutdown', () => {
  it('app.close() closes the subscriber connection', async () => {
    const prefix = uniquePrefix('ps-close');
    const moduleRef = await Test.createTestingModule({
      imports: [RedisPatternsModule.forRoot({ connection: connectionFor('standalone'), keyPrefix: prefix })],
    }).compile();
    const app = moduleRef.createNestApplication();
    await app.init();
    const admin = rawClient('standalone') as Redis;
    try {
      await app.get(PubSubService).subscribe('x', () => undefined);
      const pubsubClients = async () =>
        ((await admin.client('LIST')) as string).split('\n').filter((l) => l.includes(`name=redis-patterns:${prefix}:default:pubsub`))
          .length;
      expect(await pubsubClients()).toBe(1);
      await app.close();
      await waitFor(async () => (await pubsubClients()) === 0, 5000);
    } finally {
      admin.disconnect();
    }
  });
});

describe('PubSubService in memory', () => {
  it('keeps messages in the application: another module instance in the process receives none', async () => {
    const prefix = uniquePrefix('ps-memory-apps');
    const [first, second] = await Promise.all([startPubSubApp('memory', prefix), startPubSubApp('memory', prefix)]);
    try {
      const got: string[] = [];
      await second.get(PubSubService).subscribe('news', (m) => void got.push(`second ${String(m)}`));
      await first.get(PubSubService).subscribe('news', (m) => void got.push(`first ${String(m)}`));
      expect(await first.get(PubSubService).publish('news', 'a')).toBe(1);
      expect(await second.get(PubSubService).publish('news', 'b')).toBe(1);
      await waitFor(() => got.length === 2, 5000);
      expect(got.sort()).toEqual(['first a', 'second b']);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it('has run a free synchronous handler by the time publish resolves', async () => {
    const app = await startPubSubApp('memory', uniquePrefix('ps-memory-sync'));
    try {
      const pubsub = app.get(PubSubService);
      const got: unknown[] = [];
      await pubsub.subscribe('now', (m) => void got.push(m));
      await pubsub.publish('now', 1);
      expect(got).toEqual([1]);
      expect(app.get(OrderListener).received).toEqual([]);
      await pubsub.publish('orders:paid', { id: 1 });
      expect(app.get(OrderListener).received).toEqual([{ message: { id: 1 }, channel: 'orders:paid' }]);
    } finally {
      await app.close();
    }
  });

  it('closing ends every subscription: nothing is delivered afterwards, not even a message already queued', async () => {
    const prefix = uniquePrefix('ps-memory-close');
    const app = await startPubSubApp('memory', prefix);
    const store = app.get<PubSubStore>(PUBSUB_STORE);
    const got: unknown[] = [];
    await app.get(PubSubService).subscribe('gone', (m) => void got.push(m));
    expect(await store.publish(`${prefix}:pubsub:gone`, '1')).toBe(1);
    await app.close();
    expect(await store.publish(`${prefix}:pubsub:gone`, '2')).toBe(0);
    expect(got).toEqual([1]);

    // On a store: a delivery queued (publish called, its microtask not run yet) when the store closes is dropped.
    const own = new MemoryPubSubStore(new MemoryKeyspace());
    const seen: string[] = [];
    own.listen({ message: (_subscription, _channel, message) => void seen.push(message), resubscribed: () => undefined });
    await own.subscribe('raw');
    const publishing = own.publish('raw', 'queued');
    await own.close();
    expect(await publishing).toBe(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual([]);
    // A later subscribe works again, as a new subscriber connection would.
    await own.subscribe('raw');
    expect(await own.publish('raw', 'after')).toBe(1);
    expect(seen).toEqual(['after']);
  });
});

describe('the in-memory PSUBSCRIBE glob, pair by pair against Redis', () => {
  // Glob syntax edge cases: stars, ?, classes (negated, ranges both ways, escapes, unclosed), escapes, UTF-8 bytes.
  const PATTERNS = [
    '*',
    'a*',
    '*c',
    'a*c',
    'a**c',
    'a*b*c',
    '?',
    'a?c',
    '??',
    'h?llo',
    'h??llo',
    '[abc]',
    '[^abc]',
    'a[b-d]c',
    'a[d-b]c',
    'a[^b-d]c',
    'a[\\]]c',
    'a[\\-]c',
    'a[-b]c',
    'a[b-]c',
    '[]a]',
    'a[bc',
    'a[',
    'a\\*',
    'a\\?c',
    'a\\',
    '\\a',
    'a[!b]c',
    '[a-c][a-c]',
    '*[é]*',
    'h[é]llo',
    '*\\[*',
    'a*[bc]',
    '*a*a*a*b',
  ];
  const CHANNELS = [
    '',
    'a',
    'ab',
    'abc',
    'abbc',
    'ac',
    'adc',
    'aec',
    'a]c',
    'a-c',
    'a*',
    'a?c',
    'a\\',
    'a[bc',
    'a[',
    'x',
    'hello',
    'hällo',
    'héllo',
    'é',
    'abcabc',
    'a!c',
    'bb',
    '[',
    ']',
    'a b c',
    'aaaaaaaaaaaaaaaaaaaaaaaac',
    'aaab',
  ];

  it('receives exactly the channels Redis delivers for every pattern', async () => {
    const tag = `${uniquePrefix('glob')}/`; // keeps the patterns away from the channels of other specs
    const subscriber = rawClient('standalone') as Redis;
    const publisher = rawClient('standalone') as Redis;
    const memory = new MemoryPubSubStore(new MemoryKeyspace());
    const mismatches: string[] = [];
    let matches = 0;
    try {
      for (const pattern of PATTERNS) {
        await subscriber.psubscribe(tag + pattern);
        await memory.psubscribe(tag + pattern);
        const redis = await Promise.all(CHANNELS.map((channel) => publisher.publish(tag + channel, 'm')));
        const inMemory = await Promise.all(CHANNELS.map((channel) => memory.publish(tag + channel, 'm')));
        CHANNELS.forEach((channel, i) => {
          if (redis[i] !== inMemory[i]) mismatches.push(`${pattern} on "${channel}": Redis ${redis[i]}, memory ${inMemory[i]}`);
          matches += redis[i];
        });
        await subscriber.punsubscribe(tag + pattern);
        await memory.punsubscribe(tag + pattern);
      }
    } finally {
      subscriber.disconnect();
      publisher.disconnect();
    }
    expect(mismatches).toEqual([]);
    // Not vacuous: a good share of the pairs match, and most do not.
    expect(matches).toBeGreaterThan(40);
    expect(matches).toBeLessThan((PATTERNS.length * CHANNELS.length) / 2);
  });
});
