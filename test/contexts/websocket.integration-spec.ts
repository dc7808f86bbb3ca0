import type { INestApplication } from '@nestjs/common';
import { ConnectedSocket, MessageBody, SubscribeMessage, WebSocketGateway, type WsResponse } from '@nestjs/websockets';
import { WsAdapter } from '@nestjs/platform-ws';
import { IoAdapter } from '@nestjs/platform-socket.io';
import { Test } from '@nestjs/testing';
import { Cacheable, RateLimit, type RateLimitOptions, RedisPatternsModule } from 'nestjs-redis-patterns';
import { connectionFor, uniquePrefix } from '../support/redis-env';
import { RecordingLogger } from './recording-logger';
import { type GatewayClient, socketIoClient, wsClient } from './ws-clients';

const MINUTE = 60_000;

@WebSocketGateway()
class ChatGateway {
  loads = 0;

  // Undecorated parameters: Nest passes (client, data); the decorator must not change that.
  @SubscribeMessage('say')
  @RateLimit({ algorithm: 'fixed-window', limit: 2, windowMs: MINUTE })
  say(client: object, data: { text: string }): WsResponse<{ text: string; hasClient: boolean }> {
    return { event: 'reply', data: { text: data.text, hasClient: typeof client === 'object' && client !== null } };
  }

  @SubscribeMessage('lookup')
  @Cacheable({ ttl: 60 })
  async lookup(
    @MessageBody() query: { id: string },
    @ConnectedSocket() client: object,
  ): Promise<WsResponse<{ id: string; load: number; hasClient: boolean }>> {
    this.loads++;
    return { event: 'reply', data: { id: query.id, load: this.loads, hasClient: !!client } };
  }
}

type AdapterCase = { name: string; adapter: (app: INestApplication) => object; connect: (app: INestApplication) => Promise<GatewayClient> };

const adapters: AdapterCase[] = [
  { name: 'ws', adapter: (app) => new WsAdapter(app), connect: wsClient },
  { name: 'socket.io', adapter: (app) => new IoAdapter(app), connect: socketIoClient },
];

async function startGatewayApp(adapter: AdapterCase, rateLimit: RateLimitOptions, logger: RecordingLogger): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({
    imports: [
      RedisPatternsModule.forRoot({
        connection: connectionFor('standalone'),
        keyPrefix: uniquePrefix(`ws${adapter.name}`),
        rateLimit,
        logger,
      }),
    ],
    providers: [ChatGateway],
  }).compile();
  const app = moduleRef.createNestApplication({ logger });
  app.useWebSocketAdapter(adapter.adapter(app) as never);
  await app.listen(0, '127.0.0.1');
  return app;
}

describe.each(adapters)('decorators in a WebSocket gateway ($name, real clients)', (adapter) => {
  let app: INestApplication;
  let logger: RecordingLogger;
  const clients: GatewayClient[] = [];
  const connect = async (target = app) => {
    const client = await adapter.connect(target);
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    logger = new RecordingLogger();
    app = await startGatewayApp(adapter, { wsIdentity: 'connection' }, logger);
  });

  afterAll(async () => {
    for (const client of clients) client.close();
    await app?.close();
  });

  it('passes (client, data) to undecorated parameters', async () => {
    const client = await connect();
    await expect(client.request('say', { text: 'hello' })).resolves.toEqual({ event: 'reply', data: { text: 'hello', hasClient: true } });
  });

  it('counts @RateLimit per connection, and a denial is an exception event with code 429 and retryAfterMs, not an error log', async () => {
    const first = await connect();
    const second = await connect();
    expect((await first.request('say', { text: '1' })).event).toBe('reply');
    expect((await first.request('say', { text: '2' })).event).toBe('reply');
    const denied = await first.request('say', { text: '3' });
    expect(denied.event).toBe('exception');
    expect(denied.data).toMatchObject({ status: 'error', code: 429, error: 'RateLimitDeniedError', message: 'Rate limit exceeded' });
    expect((denied.data as { retryAfterMs: number }).retryAfterMs).toBeGreaterThan(0);
    // Another connection has a budget of its own.
    expect((await second.request('say', { text: 'a' })).event).toBe('reply');
    expect(logger.at('error')).toEqual([]);
  });

  it('caches per message body by default, never mixing two payloads (the socket is not part of the key)', async () => {
    const gateway = app.get(ChatGateway);
    const loadsBefore = gateway.loads;
    const one = await connect();
    const other = await connect();
    const a = await one.request('lookup', { id: 'a' });
    const b = await one.request('lookup', { id: 'b' });
    const aAgain = await other.request('lookup', { id: 'a' });
    expect(a.data).toMatchObject({ id: 'a', hasClient: true });
    expect(b.data).toMatchObject({ id: 'b' });
    expect(aAgain.data).toEqual(a.data);
    expect(gateway.loads - loadsBefore).toBe(2);
  });

  it("with rateLimit.wsIdentity 'address', counts every connection of one address in one budget", async () => {
    const byAddress = await startGatewayApp(adapter, { wsIdentity: 'address' }, new RecordingLogger());
    try {
      const first = await connect(byAddress);
      const second = await connect(byAddress);
      expect((await first.request('say', { text: '1' })).event).toBe('reply');
      expect((await second.request('say', { text: '2' })).event).toBe('reply');
      expect((await second.request('say', { text: '3' })).event).toBe('exception');
    } finally {
      await byAddress.close();
    }
  });
});
