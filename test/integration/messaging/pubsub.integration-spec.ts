import { Injectable, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Cluster, Redis } from 'ioredis';
import { InvalidArgumentError, OnRedisMessage, PubSubService, RedisPatternsModule } from 'nestjs-redis-patterns';
import { connectionFor, rawClient, type TopologyName, uniquePrefix, waitFor } from '../../support/redis-env';

const received: Array<{ message: unknown; channel: string }> = [];

@Injectable()
class OrderListener {
  @OnRedisMessage('orders:*')
  onOrder(message: unknown, channel: string): void {
    received.push({ message, channel });
  }
}

describe.each<TopologyName>(['standalone', 'cluster'])('PubSubService on %s', (topology) => {
  let app: INestApplication;
  let pubsub: PubSubService;
  let raw: Redis | Cluster;
  const prefix = uniquePrefix(`ps-${topology}`);

  beforeAll(async () => {
    raw = rawClient(topology);
    const moduleRef = await Test.createTestingModule({
      imports: [RedisPatternsModule.forRoot({ connection: connectionFor(topology), keyPrefix: prefix })],
      providers: [OrderListener],
    }).compile();
    app = moduleRef.createNestApplication();
    await app.init();
    pubsub = app.get(PubSubService);
  });

  afterAll(async () => {
    await app?.close();
    raw?.disconnect();
  });

  it('delivers JSON messages in publication order and reports the receiver count', async () => {
    const got: unknown[] = [];
    const sub = await pubsub.subscribe<{ seq: number }>('ticks', (message) => {
      got.push(message.seq);
    });
    const counts = await Promise.all(Array.from({ length: 500 }, (_, seq) => pubsub.publish('ticks', { seq })));
    // PUBLISH counts subscribers connected to the node that took it; on a cluster ours may sit on another node.
    const expected = topology === 'standalone' ? [1] : [0, 1];
    expect(counts.every((n) => expected.includes(n))).toBe(true);
    await waitFor(
      () => got.length === 500,
      5000,
      () => `500 messages, got ${got.length}`,
    );
    expect(got).toEqual(Array.from({ length: 500 }, (_, seq) => seq));
    await sub.unsubscribe();
  });

  it('uses an escaped channel under the key prefix: <prefix>:pubsub:<channel>', async () => {
    const got: unknown[] = [];
    const sub = await pubsub.subscribe('user:42 events', (message) => {
      got.push(message);
    });
    // Published by hand on the documented raw channel: the service must receive it.
    await raw.publish(`${prefix}:pubsub:user%3A42%20events`, JSON.stringify({ ok: 1 }));
    await waitFor(() => got.length === 1, 5000);
    expect(got).toEqual([{ ok: 1 }]);
    // A plain-text message from another tool is passed on as the string.
    await raw.publish(`${prefix}:pubsub:user%3A42%20events`, 'not json');
    await waitFor(() => got.length === 2, 5000);
    expect(got[1]).toBe('not json');
    await sub.unsubscribe();
  });

  it('matches patterns against user-facing names and hands over the real channel', async () => {
    const got: Array<[unknown, string]> = [];
    const sub = await pubsub.subscribe('chat:room-?:*', (message, channel) => {
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

  it('delivers the messages of one publisher in the order they were published, across channels', async () => {
    // On a cluster a PUBLISH sent to a random node reaches the subscriber's node over that node's own bus link:
    // without one publishing node, messages published one after the other arrive out of order.
    const got: number[] = [];
    const sub = await pubsub.subscribe('seq:*', (message) => {
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
    const sub = await pubsub.subscribe('a:*', (_m, channel) => {
      got.push(channel);
    });
    // Escaping turns the user's "*" into a literal: publishing to "b*" never reaches "a:*".
    await expect(pubsub.publish('b*', 'x')).rejects.toBeInstanceOf(InvalidArgumentError);
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
    // Nobody listens any more: Redis reports no subscriber of the raw channel.
    const numsub = async () => {
      const nodes = 'nodes' in raw ? (raw as Cluster).nodes('master') : [raw as Redis];
      const replies = await Promise.all(nodes.map((node) => node.pubsub('NUMSUB', `${prefix}:pubsub:shared`) as Promise<[string, number]>));
      return replies.reduce((sum, reply) => sum + Number(reply[1]), 0);
    };
    await waitFor(
      async () => (await numsub()) === 0,
      5000,
      () => 'no subscriber left on the raw channel',
    );
    expect(await pubsub.publish('shared', 3)).toBe(0);
    expect(second).toEqual([1, 2]);
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
    await pubsub.publish('orders:created', { id: 7 });
    await waitFor(() => received.some((r) => r.channel === 'orders:created'), 5000);
    expect(received).toContainEqual({ message: { id: 7 }, channel: 'orders:created' });
  });

  it('rejects bad arguments with typed errors', async () => {
    await expect(pubsub.publish('', 1)).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(pubsub.publish('x', undefined)).rejects.toThrow(/message/);
    await expect(pubsub.subscribe('x', 'nope' as never)).rejects.toThrow(/handler/);
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
