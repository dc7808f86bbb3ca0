import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Redis } from 'ioredis';
import { RedisPatternsModule } from 'nestjs-redis-patterns';
import { PubSubService, type StreamMessage, StreamsService } from 'nestjs-redis-patterns/messaging';
import { privateServer, type RedisServerProcess, uniquePrefix, waitFor } from '../../support/redis-env';

// Faults on a server of this file's own: kill -9 and restart, and killed subscriber connections.
describe('messaging across server restarts and killed connections', () => {
  let server: RedisServerProcess;
  let app: INestApplication;
  let admin: Redis;
  const prefix = uniquePrefix('msg-restart');

  beforeAll(async () => {
    server = await privateServer();
    admin = new Redis(server.url, { maxRetriesPerRequest: 1, retryStrategy: () => 50 });
    const moduleRef = await Test.createTestingModule({
      imports: [RedisPatternsModule.forRoot({ connection: server.url, keyPrefix: prefix, streams: { blockMs: 100, claimIdleMs: 200 } })],
    }).compile();
    app = moduleRef.createNestApplication();
    await app.init();
  });

  afterAll(async () => {
    await app?.close();
    admin?.disconnect();
    await server?.stop();
  });

  /** Publishes until the subscriber sees a message again (pub/sub is at-most-once while it reconnects). */
  async function publishUntilReceived(pubsub: PubSubService, channel: string, seen: () => number): Promise<void> {
    const before = seen();
    let i = 0;
    await waitFor(
      async () => {
        await pubsub.publish(channel, { probe: i++ }).catch(() => 0);
        return seen() > before;
      },
      15_000,
      () => `delivery on ${channel} to resume`,
    );
  }

  it('channel and pattern subscriptions are restored after the server is killed and restarted', async () => {
    const pubsub = app.get(PubSubService);
    const onChannel: unknown[] = [];
    const onPattern: string[] = [];
    await pubsub.subscribe('alerts', (m) => void onChannel.push(m));
    await pubsub.psubscribe('metrics:*', (_m, channel) => void onPattern.push(channel));
    await pubsub.publish('alerts', 'before');
    await waitFor(() => onChannel.length === 1, 5000);

    await server.kill();
    await server.restart();

    await publishUntilReceived(pubsub, 'alerts', () => onChannel.length);
    await publishUntilReceived(pubsub, 'metrics:cpu', () => onPattern.length);
    expect(onPattern.every((channel) => channel === 'metrics:cpu')).toBe(true);
  });

  it('a subscriber connection killed by the server (CLIENT KILL TYPE pubsub) re-subscribes', async () => {
    const pubsub = app.get(PubSubService);
    const got: unknown[] = [];
    await pubsub.subscribe('jobs', (m) => void got.push(m));
    await pubsub.publish('jobs', 1);
    await waitFor(() => got.length === 1, 5000);
    expect(Number(await admin.call('CLIENT', 'KILL', 'TYPE', 'pubsub'))).toBeGreaterThanOrEqual(1);
    await publishUntilReceived(pubsub, 'jobs', () => got.length);
  });

  it('a stream consumer keeps consuming after the server lost everything (group recreated)', async () => {
    const streams = app.get(StreamsService);
    const got: StreamMessage[] = [];
    const consumer = streams.consume({ stream: 'events', group: 'g', handler: (m) => void got.push(m) });
    await consumer.ready;
    await streams.add('events', { n: 'before' });
    await waitFor(() => got.length === 1, 5000);

    await server.kill();
    await server.restart();

    // The restarted server has no stream and no group (no persistence): the consumer recreates the group.
    await waitFor(
      async () => {
        await streams.add('events', { n: 'after' }).catch(() => undefined);
        return got.some((m) => m.fields.n === 'after');
      },
      15_000,
      () => 'an entry added after the restart to be consumed',
    );
    await consumer.stop();
  });
});
