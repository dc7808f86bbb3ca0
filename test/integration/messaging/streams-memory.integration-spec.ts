import { Injectable, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { RedisPatternsModule } from 'nestjs-redis-patterns';
import { NoRedisInMemoryModeError } from '../../../libs/redis-patterns/src/errors/no-redis-in-memory-mode.error';
import { PubSubService, StreamConsumer, type StreamMessage, StreamsService } from 'nestjs-redis-patterns/messaging';
import { uniquePrefix } from '../../support/redis-env';

@Injectable()
class Invoicing {
  readonly handled: StreamMessage[] = [];

  @StreamConsumer({ stream: 'invoices', group: 'billing' })
  bill(message: StreamMessage): void {
    this.handled.push(message);
  }
}

async function memoryApp(providers: Array<new (...args: never[]) => unknown> = []): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({
    imports: [RedisPatternsModule.forRoot({ connection: 'memory://', keyPrefix: uniquePrefix('streams-memory') })],
    providers,
  }).compile();
  return moduleRef.createNestApplication();
}

/** What every refusal says: streams need a server, and how to get a throwaway one. */
const REFUSAL = /Redis Streams needs a Redis server.*startTestRedis\(\) from nestjs-redis-patterns\/testing/;

describe('Streams in memory mode: refused clearly', () => {
  let app: INestApplication;
  let streams: StreamsService;

  beforeAll(async () => {
    app = await memoryApp();
    await app.init();
    streams = app.get(StreamsService);
  });

  afterAll(() => app?.close());

  it('StreamsService.add rejects with NoRedisInMemoryModeError naming startTestRedis', async () => {
    const adding = streams.add('orders', { id: 1 });
    await expect(adding).rejects.toBeInstanceOf(NoRedisInMemoryModeError);
    await expect(adding).rejects.toThrow(REFUSAL);
    await expect(adding).rejects.toMatchObject({ name: 'NoRedisInMemoryModeError', needed: 'Redis Streams' });
  });

  it('every other call refuses the same way: replaying dead letters rejects, consume throws', async () => {
    await expect(streams.replayDeadLetters('orders')).rejects.toThrow(REFUSAL);
    expect(() => streams.consume({ stream: 'orders', group: 'g', handler: () => undefined })).toThrow(NoRedisInMemoryModeError);
    expect(() => streams.consume({ stream: 'orders', group: 'g', handler: () => undefined })).toThrow(REFUSAL);
  });

  it('still validates arguments first, with the usual errors', async () => {
    await expect(streams.add('', { id: 1 })).rejects.toThrow(/"stream"/);
    expect(streams.keyOf('orders')).toMatch(/:stream:orders$/);
  });

  it('leaves the other patterns working: pub/sub runs in memory in the same application', async () => {
    const got: unknown[] = [];
    await app.get(PubSubService).subscribe('still-here', (message) => void got.push(message));
    expect(await app.get(PubSubService).publish('still-here', 'yes')).toBe(1);
    expect(got).toEqual(['yes']);
  });
});

describe('@StreamConsumer in memory mode', () => {
  it('fails app.init() with NoRedisInMemoryModeError, not an unhandled rejection or a log line', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    const app = await memoryApp([Invoicing]);
    try {
      const init = app.init();
      await expect(init).rejects.toBeInstanceOf(NoRedisInMemoryModeError);
      await expect(init).rejects.toThrow(REFUSAL);
      // Give a background consumer loop, had one been started, time to fail on its own.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(unhandled).toEqual([]);
      expect(app.get(Invoicing).handled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await app.close();
    }
  });
});
