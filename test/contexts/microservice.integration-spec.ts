import { Controller, Injectable, type INestMicroservice } from '@nestjs/common';
import {
  ClientProxyFactory,
  type ClientProxy,
  Ctx,
  EventPattern,
  MessagePattern,
  Payload,
  type TcpContext,
  Transport,
} from '@nestjs/microservices';
import { Test } from '@nestjs/testing';
import { firstValueFrom, timeout } from 'rxjs';
import { Cacheable, LockService, RateLimit, RedisPatternsModule, WithLock } from 'nestjs-redis-patterns';
import { connectionFor, freeLoopbackPort, uniquePrefix, waitFor } from '../support/redis-env';
import { RecordingLogger } from './recording-logger';

const MINUTE = 60_000;

@Injectable()
class Quotas {
  @RateLimit({ algorithm: 'fixed-window', limit: 1, windowMs: MINUTE })
  async spend(): Promise<string> {
    return 'spent';
  }
}

@Controller()
@RateLimit({ algorithm: 'fixed-window', limit: 2, windowMs: MINUTE })
class ReportsRpcController {
  // No @RateLimit of its own: the class default (limit 2) applies, through the guard.
  @MessagePattern('class-default')
  async classDefault(data: number): Promise<number> {
    return data * 2;
  }
}

@Controller()
class OrdersRpcController {
  loads = 0;
  audited: unknown[] = [];

  constructor(private readonly quotas: Quotas) {}

  // Undecorated parameters: Nest passes the payload; the decorator must not change that.
  @MessagePattern('price')
  @Cacheable({ key: (order: { id: string }) => `price:${order.id}`, ttl: 60 })
  async price(order: { id: string }): Promise<{ id: string; load: number }> {
    this.loads++;
    return { id: order.id, load: this.loads };
  }

  @MessagePattern('echo')
  @RateLimit({ algorithm: 'fixed-window', limit: 2, windowMs: MINUTE })
  async echo(@Payload() data: { text: string }, @Ctx() context: TcpContext): Promise<{ text: string; pattern: string }> {
    return { text: data.text, pattern: context.getPattern() };
  }

  @MessagePattern('tenant')
  @RateLimit({ algorithm: 'fixed-window', limit: 1, windowMs: MINUTE, key: (data: { tenant: string }) => data.tenant })
  async tenant(data: { tenant: string }): Promise<string> {
    return data.tenant;
  }

  @MessagePattern('pay')
  @WithLock({ resource: (data: { orderId: string }) => `order:${data.orderId}`, ttlMs: 5000 })
  async pay(data: { orderId: string }): Promise<string> {
    return `paid ${data.orderId}`;
  }

  // Undecorated handler, decorated provider: the provider's denial must still reach the caller.
  @MessagePattern('spend')
  async spend(): Promise<string> {
    return this.quotas.spend();
  }

  @EventPattern('audit')
  @RateLimit({ algorithm: 'fixed-window', limit: 1, windowMs: MINUTE })
  async audit(entry: unknown): Promise<void> {
    this.audited.push(entry);
  }
}

describe('decorators in a TCP microservice (real ClientProxy)', () => {
  let app: INestMicroservice;
  let client: ClientProxy;
  let logger: RecordingLogger;
  // A reply that never comes fails the test in 3 s instead of stalling the suite.
  const send = <T>(pattern: string, data: unknown): Promise<T> => firstValueFrom(client.send<T>(pattern, data).pipe(timeout(3000)));
  const failure = (pattern: string, data: unknown): Promise<Record<string, unknown>> =>
    send(pattern, data).then(
      (value) => Promise.reject(new Error(`expected an error reply, got ${JSON.stringify(value)}`)),
      (error: unknown) => error as Record<string, unknown>,
    );

  beforeAll(async () => {
    logger = new RecordingLogger();
    const port = await freeLoopbackPort();
    const moduleRef = await Test.createTestingModule({
      imports: [RedisPatternsModule.forRoot({ connection: connectionFor('standalone'), keyPrefix: uniquePrefix('rpc'), logger })],
      controllers: [OrdersRpcController, ReportsRpcController],
      providers: [Quotas],
    }).compile();
    app = moduleRef.createNestMicroservice({ transport: Transport.TCP, options: { host: '127.0.0.1', port }, logger });
    await app.listen();
    client = ClientProxyFactory.create({ transport: Transport.TCP, options: { host: '127.0.0.1', port } });
    await client.connect();
  });

  afterAll(async () => {
    await client?.close();
    await app?.close();
  });

  it('passes the payload to undecorated parameters, and caches per payload (two payloads never share an entry)', async () => {
    const controller = app.get(OrdersRpcController);
    await expect(send('price', { id: 'a' })).resolves.toEqual({ id: 'a', load: 1 });
    await expect(send('price', { id: 'b' })).resolves.toEqual({ id: 'b', load: 2 });
    await expect(send('price', { id: 'a' })).resolves.toEqual({ id: 'a', load: 1 });
    expect(controller.loads).toBe(2);
  });

  it('keeps decorated parameters (@Payload, @Ctx) as they are', async () => {
    await expect(send('echo', { text: 'hi' })).resolves.toEqual({ text: 'hi', pattern: 'echo' });
  });

  it('enforces @RateLimit without key as one budget for the handler, answering 429 with retryAfterMs, never hanging', async () => {
    // 'echo' allows 2 per minute; the previous test used one.
    await expect(send('echo', { text: 'two' })).resolves.toMatchObject({ text: 'two' });
    const denied = await failure('echo', { text: 'three' });
    expect(denied).toMatchObject({ status: 429, error: 'RateLimitDeniedError', message: 'Rate limit exceeded' });
    expect(denied.retryAfterMs).toBeGreaterThan(0);
    expect(denied.retryAfterMs).toBeLessThanOrEqual(MINUTE);
  });

  it('counts per key(payload) when given one', async () => {
    await expect(send('tenant', { tenant: 'acme' })).resolves.toBe('acme');
    await expect(send('tenant', { tenant: 'globex' })).resolves.toBe('globex');
    await expect(failure('tenant', { tenant: 'acme' })).resolves.toMatchObject({ status: 429 });
  });

  it('applies a class-level @RateLimit to handlers without their own', async () => {
    await expect(send('class-default', 1)).resolves.toBe(2);
    await expect(send('class-default', 2)).resolves.toBe(4);
    await expect(failure('class-default', 3)).resolves.toMatchObject({ status: 429, error: 'RateLimitDeniedError' });
  });

  it('answers lock contention with 409 and retryAfterMs', async () => {
    const held = await app.get(LockService).tryAcquire('order:42', { ttlMs: 5000 });
    expect(held).not.toBeNull();
    try {
      const denied = await failure('pay', { orderId: '42' });
      expect(denied).toMatchObject({ status: 409, error: 'LockNotAcquiredError' });
      expect(denied.retryAfterMs).toBeGreaterThan(0);
    } finally {
      await held!.release();
    }
    await expect(send('pay', { orderId: '42' })).resolves.toBe('paid 42');
  });

  it("answers a decorated provider's denial under an undecorated handler (no hang)", async () => {
    await expect(send('spend', {})).resolves.toBe('spent');
    await expect(failure('spend', {})).resolves.toMatchObject({ status: 429, error: 'RateLimitDeniedError' });
  });

  it('drops a denied event with a warning, never an error log', async () => {
    client.emit('audit', { n: 1 }).subscribe();
    client.emit('audit', { n: 2 }).subscribe();
    await waitFor(
      () => logger.at('warn').some((line) => line.startsWith('Event dropped by OrdersRpcController.audit')),
      3000,
      () => 'the dropped-event warning',
    );
    expect(app.get(OrdersRpcController).audited).toHaveLength(1);
    expect(logger.at('error')).toEqual([]);
  });
});
