import { Controller, Get, type INestApplication, Injectable } from '@nestjs/common';
import { SubscribeMessage, WebSocketGateway, type WsResponse } from '@nestjs/websockets';
import { WsAdapter } from '@nestjs/platform-ws';
import { IoAdapter } from '@nestjs/platform-socket.io';
import { Test } from '@nestjs/testing';
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import request from 'supertest';
import {
  InvalidOptionsError,
  RateLimit,
  RateLimitDeniedError,
  RateLimitIdentityError,
  RateLimiterService,
  type RateLimitPolicy,
  RedisPatternsModule,
  RedisRefusedError,
} from 'nestjs-redis-patterns';
import { RedisPatternsThrottlerStorage } from 'nestjs-redis-patterns/adapters';
import { type BackendName, connectionOf } from '../../support/backends';
import { connectionFor, rawClient, scanKeys, uniquePrefix } from '../../support/redis-env';
import { RecordingLogger } from '../../contexts/recording-logger';
import { type GatewayClient, socketIoClient, wsClient } from '../../contexts/ws-clients';
import { LoginController } from '../../../docs/examples/rate-limit-plans';
import { startApp } from './rate-limit-app';

const MINUTE = 60_000;
const TWO_PER_MINUTE: RateLimitPolicy = { algorithm: 'fixed-window', limit: 2, windowMs: MINUTE };
const ONE_PER_MINUTE: RateLimitPolicy = { algorithm: 'fixed-window', limit: 1, windowMs: MINUTE };

type Headers = Record<string, string | undefined>;
const keyModes: Record<string, unknown> = { undefined: undefined, null: null, empty: '', object: {}, nan: NaN };

@Controller('hostile')
class HostileController {
  calls = 0;

  @RateLimit({ ...TWO_PER_MINUTE, name: 'port' })
  @Get('port')
  port() {
    this.calls++;
    return { ok: true };
  }

  @RateLimit({ ...TWO_PER_MINUTE, name: 'v6port' })
  @Get('v6port')
  v6port() {
    return { ok: true };
  }

  @RateLimit({ ...TWO_PER_MINUTE, name: 'garbage' })
  @Get('garbage')
  garbage() {
    return { ok: true };
  }

  @RateLimit({ ...ONE_PER_MINUTE, name: 'otp', key: (req: { headers: Headers }) => req.headers['x-tracker'] ?? 'none' })
  @Get('otp')
  otp() {
    return { ok: true };
  }

  @RateLimit({ ...ONE_PER_MINUTE, name: 'otp:sms', key: (req: { headers: Headers }) => req.headers['x-tracker'] ?? 'none' })
  @Get('otp-sms')
  otpSms() {
    return { ok: true };
  }

  @RateLimit({ ...ONE_PER_MINUTE, name: 'nokey', key: (req: { query: Record<string, string> }) => keyModes[req.query.mode] as string })
  @Get('nokey')
  noKey() {
    this.calls++;
    return { ok: true };
  }
}

@Injectable()
class OtpSender {
  @RateLimit({ ...ONE_PER_MINUTE, name: 'otp', key: (to: string) => to })
  async byOtp(to: string): Promise<string> {
    return to;
  }

  @RateLimit({ ...ONE_PER_MINUTE, name: 'otp:sms', key: (to: string) => to })
  async byOtpSms(to: string): Promise<string> {
    return to;
  }

  @RateLimit({ ...ONE_PER_MINUTE, name: 'mailer', key: (to?: string) => to as string })
  async mail(to?: string): Promise<string> {
    return String(to);
  }
}

const hit = (app: INestApplication, path: string, headers: Record<string, string> = {}) => {
  const call = request(app.getHttpServer()).get(path);
  for (const [name, value] of Object.entries(headers)) call.set(name, value);
  return call;
};

const statusesOf = async (app: INestApplication, path: string, headers: Array<Record<string, string>>): Promise<number[]> => {
  const statuses: number[] = [];
  for (const each of headers) statuses.push((await hit(app, path, each)).status);
  return statuses;
};

describe('rate-limit identity from X-Forwarded-For behind a trusted proxy (Express)', () => {
  let app: INestApplication;
  const logger = new RecordingLogger();

  beforeAll(async () => {
    app = await startApp(
      { connection: connectionFor('standalone'), keyPrefix: uniquePrefix('rlxff'), logger, rateLimit: { trustProxyHops: 1 } },
      { controllers: [HostileController], http: true },
    );
  });

  afterAll(async () => {
    await app?.close();
  });

  it('an address with its port appended is one client, whatever the port', async () => {
    const ports = [40001, 40002, 40003, 40004].map((port) => ({ 'x-forwarded-for': `203.0.113.5:${port}` }));
    expect(await statusesOf(app, '/hostile/port', ports)).toEqual([200, 200, 429, 429]);
    // The same address without a port is the same client.
    expect((await hit(app, '/hostile/port', { 'x-forwarded-for': '203.0.113.5' })).status).toBe(429);
    // Another address has its own budget.
    expect((await hit(app, '/hostile/port', { 'x-forwarded-for': '203.0.113.6:40001' })).status).toBe(200);
  });

  it('a bracketed IPv6 address with a port is one client, whatever the port', async () => {
    const ports = [50001, 50002, 50003].map((port) => ({ 'x-forwarded-for': `[2001:db8::5]:${port}` }));
    expect(await statusesOf(app, '/hostile/v6port', ports)).toEqual([200, 200, 429]);
    expect((await hit(app, '/hostile/v6port', { 'x-forwarded-for': '2001:db8::5' })).status).toBe(429);
  });

  it('an entry that is not an address counts in the socket address budget, with one throttled warning', async () => {
    const before = logger.at('warn').length;
    // The socket's own budget: a request that came without the header.
    expect((await hit(app, '/hostile/garbage')).status).toBe(200);
    const garbage = [
      `garbage-${randomBytes(6).toString('hex')}`,
      `garbage-${randomBytes(6).toString('hex')}`,
      'unknown',
      'proxy.example.com',
      '999.1.1.1',
      '203.0.113.5:notaport',
      '[2001:db8::5',
      `${randomBytes(8).toString('hex')}`,
    ].map((value) => ({ 'x-forwarded-for': value }));
    expect(await statusesOf(app, '/hostile/garbage', garbage)).toEqual([200, 429, 429, 429, 429, 429, 429, 429]);
    const warnings = logger.at('warn').slice(before);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/X-Forwarded-For/);
  });
});

describe.each<BackendName>(['standalone', 'memory'])('rate-limit key parts on %s', (backend) => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await startApp(
      { connection: connectionOf(backend), keyPrefix: uniquePrefix(`rlparts-${backend}`) },
      { controllers: [HostileController], providers: [OtpSender], http: true },
    );
  });

  afterAll(async () => {
    await app?.close();
  });

  it('the limiter name and the tracker are separate parts: ("otp", "sms:42") and ("otp:sms", "42") are two budgets (HTTP)', async () => {
    expect((await hit(app, '/hostile/otp', { 'x-tracker': 'sms:42' })).status).toBe(200);
    expect((await hit(app, '/hostile/otp-sms', { 'x-tracker': '42' })).status).toBe(200);
    // Each budget is still enforced.
    expect((await hit(app, '/hostile/otp', { 'x-tracker': 'sms:42' })).status).toBe(429);
    expect((await hit(app, '/hostile/otp-sms', { 'x-tracker': '42' })).status).toBe(429);
  });

  it('the same on a provider method', async () => {
    const sender = app.get(OtpSender);
    await expect(sender.byOtp('sms:9')).resolves.toBe('sms:9');
    await expect(sender.byOtpSms('9')).resolves.toBe('9');
    await expect(sender.byOtp('sms:9')).rejects.toBeInstanceOf(RateLimitDeniedError);
  });

  it('a key given as parts to the service is the budget of a decorator with that name and tracker', async () => {
    const limiter = app.get(RateLimiterService);
    expect((await limiter.consume(['svc', 'sms:42'], ONE_PER_MINUTE)).allowed).toBe(true);
    expect((await limiter.consume(['svc:sms', '42'], ONE_PER_MINUTE)).allowed).toBe(true);
    expect((await limiter.consume('svc:sms:42', ONE_PER_MINUTE)).allowed).toBe(true);
    expect((await limiter.consume(['svc', 'sms:42'], ONE_PER_MINUTE)).allowed).toBe(false);
    // The decorator's own budget, addressed by its parts: a penalty lands there.
    await limiter.penalize(['otp', 'sms:77'], ONE_PER_MINUTE);
    expect((await hit(app, '/hostile/otp', { 'x-tracker': 'sms:77' })).status).toBe(429);
  });
});

describe('a key function that gives no identity', () => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await startApp(
      { connection: connectionFor('standalone'), keyPrefix: uniquePrefix('rlnokey') },
      { controllers: [HostileController], providers: [OtpSender], http: true },
    );
  });

  afterAll(async () => {
    await app?.close();
  });

  it.each(Object.keys(keyModes))('%s: refused with a 500 and the handler never runs, instead of one shared budget', async (mode) => {
    const controller = app.get(HostileController);
    const before = controller.calls;
    const statuses = await statusesOf(app, `/hostile/nokey?mode=${mode}`, [{}, {}, {}]);
    expect(statuses).toEqual([500, 500, 500]);
    expect(controller.calls).toBe(before);
  });

  it('an empty constant key fails startup, naming the option', async () => {
    @Controller('empty-key')
    class EmptyKeyController {
      @RateLimit({ ...ONE_PER_MINUTE, key: '' })
      @Get()
      handler() {
        return 1;
      }
    }
    const error = await startApp(
      { connection: connectionFor('standalone'), keyPrefix: uniquePrefix('rlemptykey') },
      { controllers: [EmptyKeyController] },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidOptionsError);
    expect((error as InvalidOptionsError).option).toBe('@RateLimit(EmptyKeyController.handler).key');
  });

  it('on a provider method: RateLimitIdentityError naming the limiter and the key', async () => {
    const sender = app.get(OtpSender);
    const error = await sender.mail(undefined).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitIdentityError);
    expect((error as Error).message).toMatch(/"mailer".*`key` returned undefined/);
    await expect(sender.mail('ann@example.com')).resolves.toBe('ann@example.com');
  });
});

@WebSocketGateway()
class LimitedGateway {
  @SubscribeMessage('say')
  @RateLimit(TWO_PER_MINUTE)
  say(_client: object, data: { text: string }): WsResponse<{ text: string }> {
    return { event: 'reply', data: { text: data.text } };
  }
}

const wsAdapters = [
  { name: 'ws', adapter: (app: INestApplication) => new WsAdapter(app), connect: wsClient },
  { name: 'socket.io', adapter: (app: INestApplication) => new IoAdapter(app), connect: socketIoClient },
];

describe.each(wsAdapters)('WebSocket budgets across reconnects ($name)', (adapter) => {
  let app: INestApplication;
  const clients: GatewayClient[] = [];

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [RedisPatternsModule.forRoot({ connection: connectionFor('standalone'), keyPrefix: uniquePrefix(`rlws${adapter.name}`) })],
      providers: [LimitedGateway],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    app.useWebSocketAdapter(adapter.adapter(app) as never);
    await app.listen(0, '127.0.0.1');
  });

  afterAll(async () => {
    for (const client of clients) client.close();
    await app?.close();
  });

  it('by default a reconnect does not get a fresh budget', async () => {
    const first = await adapter.connect(app);
    clients.push(first);
    expect((await first.request('say', { text: '1' })).event).toBe('reply');
    expect((await first.request('say', { text: '2' })).event).toBe('reply');
    first.close();
    const again = await adapter.connect(app);
    clients.push(again);
    const denied = await again.request('say', { text: '3' });
    expect(denied.event).toBe('exception');
    expect(denied.data).toMatchObject({ code: 429 });
  });
});

@Controller('refused')
class RefusedController {
  calls = 0;

  @RateLimit({ ...TWO_PER_MINUTE, name: 'refused', key: 'fixed' })
  @Get()
  guarded() {
    this.calls++;
    return { ok: true };
  }
}

describe('Redis refusing the limiter (configuration errors) fails closed, whatever failOpen says', () => {
  const user = `rl-noscript-${randomBytes(4).toString('hex')}`;
  let admin: Redis;
  let refusedUrl: string;
  const apps: INestApplication[] = [];

  beforeAll(async () => {
    admin = rawClient('standalone') as Redis;
    await admin.call('ACL', 'SETUSER', user, 'on', '>pw', '~*', '&*', '+@all', '-@scripting');
    const url = new URL(connectionFor('standalone') as string);
    url.username = user;
    url.password = 'pw';
    refusedUrl = url.toString();
  });

  afterAll(async () => {
    for (const app of apps) await app.close();
    await admin.call('ACL', 'DELUSER', user);
    admin.disconnect();
  });

  const start = async (
    rateLimit: { failOpen?: boolean; inMemoryFallback?: boolean },
    logger = new RecordingLogger(),
    connection = refusedUrl,
  ) => {
    // The module's startup check refuses a user without scripting: it loses scripting once the app runs.
    await admin.call('ACL', 'SETUSER', user, '+@scripting');
    const app = await startApp(
      { connection, keyPrefix: uniquePrefix('rlrefused'), logger, rateLimit },
      { controllers: [RefusedController], http: true },
    );
    await admin.call('ACL', 'SETUSER', user, '-@scripting');
    apps.push(app);
    return app;
  };

  it.each([{ failOpen: true }, { failOpen: true, inMemoryFallback: true }])(
    'NOPERM with %o: the guarded route answers 503 and the handler never runs, again and again',
    async (rateLimit) => {
      const logger = new RecordingLogger();
      const app = await start(rateLimit, logger);
      const statuses = await statusesOf(app, '/refused', [{}, {}, {}, {}]);
      expect(statuses).toEqual([503, 503, 503, 503]);
      expect(app.get(RefusedController).calls).toBe(0);
      const errors = logger.at('error').filter((line) => /Redis refused/.test(line));
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(/NOPERM/);
      const error = await app
        .get(RateLimiterService)
        .consume('direct', TWO_PER_MINUTE)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RedisRefusedError);
      expect((error as RedisRefusedError).reply).toBe('NOPERM');
      await expect(app.get(RateLimiterService).penalize('direct', TWO_PER_MINUTE)).rejects.toBeInstanceOf(RedisRefusedError);
      expect(app.get(RateLimiterService).outageStats()).toEqual({ failedOpen: 0, failedClosed: 0, inMemory: 0 });
    },
  );

  it('NOPERM through the @nestjs/throttler storage adapter: rejected, never a pass', async () => {
    const app = await start({ failOpen: true });
    const storage = new RedisPatternsThrottlerStorage(app.get(RateLimiterService));
    const error = await storage.increment('client', 60_000, 5, 0, 'default').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RedisRefusedError);
  });

  it('WRONGTYPE at the limiter key: 503 on the route and RedisRefusedError from the service, never fail-open', async () => {
    const logger = new RecordingLogger();
    const app = await start({ failOpen: true }, logger, connectionFor('standalone') as string);
    expect((await hit(app, '/refused')).status).toBe(200);
    const [key] = await scanKeys(admin, '*rl:{refused*');
    expect(key).toBeDefined();
    await admin.del(key);
    await admin.hset(key, 'crafted', '1');
    await admin.pexpire(key, MINUTE);
    expect(await statusesOf(app, '/refused', [{}, {}, {}])).toEqual([503, 503, 503]);
    expect(app.get(RefusedController).calls).toBe(1);

    const limiter = app.get(RateLimiterService);
    expect((await limiter.consume('wt', TWO_PER_MINUTE)).allowed).toBe(true);
    const [serviceKey] = await scanKeys(admin, `*rl:{wt}:*`);
    await admin.del(serviceKey);
    await admin.lpush(serviceKey, 'crafted');
    await admin.pexpire(serviceKey, MINUTE);
    const error = await limiter.consume('wt', TWO_PER_MINUTE).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RedisRefusedError);
    expect((error as RedisRefusedError).reply).toBe('WRONGTYPE');
    expect(logger.at('error').some((line) => /Redis refused.*WRONGTYPE/.test(line))).toBe(true);
  });
});

describe('the login example of docs/examples/rate-limit-plans.ts', () => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await startApp(
      { connection: connectionFor('standalone'), keyPrefix: uniquePrefix('rllogin') },
      { controllers: [LoginController], http: true },
    );
  });

  afterAll(async () => {
    await app?.close();
  });

  const login = (email: string, password = 'wrong') => request(app.getHttpServer()).post('/login').send({ email, password });

  it('counts "Alice@x.com " and "alice@x.com" (and other spellings) in one account budget', async () => {
    const spellings = ['Alice@x.com ', 'alice@x.com', ' ALICE@X.COM', 'ａｌｉｃｅ@x.com', 'alice@x.com'];
    const statuses: number[] = [];
    for (const email of spellings) statuses.push((await login(email)).status);
    // Five attempts a minute, a wrong password counting twice: the fourth attempt on any spelling is denied.
    expect(statuses).toEqual([201, 201, 201, 429, 429]);
    // Another account is not locked by Alice's attempts.
    expect((await login('bob@x.com', 'correct horse')).status).toBe(201);
  });
});
