import { Controller, Get, Injectable, type INestApplication } from '@nestjs/common';
import request from 'supertest';
import { InvalidOptionsError, RateLimit, RateLimitDeniedError, SkipRateLimit } from 'nestjs-redis-patterns';
import { type BackendName, connectionOf } from '../../support/backends';
import { connectionFor, uniquePrefix } from '../../support/redis-env';
import { startApp } from './rate-limit-app';

const MINUTE = 60_000;

@Controller('rl')
@RateLimit({ algorithm: 'fixed-window', limit: 3, windowMs: MINUTE })
class LimitedController {
  @Get('default')
  byClassDefault() {
    return { ok: true };
  }

  @RateLimit({ algorithm: 'fixed-window', limit: 2, windowMs: MINUTE })
  @Get('tight')
  tight() {
    return { ok: true };
  }

  // Written twice: one guard, the upper limit.
  @RateLimit({ algorithm: 'fixed-window', limit: 1, windowMs: MINUTE })
  @RateLimit({ algorithm: 'fixed-window', limit: 5, windowMs: MINUTE })
  @Get('twice')
  twice() {
    return { ok: true };
  }

  @SkipRateLimit()
  @Get('free')
  free() {
    return { ok: true };
  }

  @RateLimit([
    { algorithm: 'sliding-log', limit: 2, windowMs: MINUTE },
    { algorithm: 'fixed-window', limit: 10, windowMs: 86_400_000 },
  ])
  @Get('multi')
  multi() {
    return { ok: true };
  }

  @RateLimit({
    algorithm: 'gcra',
    limit: 2,
    periodMs: MINUTE,
    key: (req: { headers: Record<string, string> }) => req.headers['x-user'] ?? 'anonymous',
  })
  @Get('per-user')
  perUser() {
    return { ok: true };
  }
}

// A subclass with a default of its own: Nest's guard metadata extends its parent's, so both classes' guards run on
// its routes; only its own decides.
@Controller('child')
@RateLimit({ algorithm: 'fixed-window', limit: 1, windowMs: MINUTE })
class ChildController extends LimitedController {}

@Controller('open')
class OpenController {
  @Get()
  open() {
    return { ok: true };
  }
}

@Injectable()
class Mailer {
  sent = 0;

  @RateLimit({ algorithm: 'token-bucket', capacity: 2, refillPerSecond: 0.01, key: (to: string) => to })
  async send(to: string): Promise<string> {
    this.sent++;
    return `sent to ${to}`;
  }
}

describe.each<BackendName>(['standalone', 'cluster', 'memory'])('@RateLimit over HTTP on %s', (backend) => {
  let app: INestApplication;
  let behindProxy: INestApplication;

  beforeAll(async () => {
    const base = { connection: connectionOf(backend), keyPrefix: uniquePrefix(`rlhttp-${backend}`) };
    app = await startApp(base, {
      controllers: [LimitedController, ChildController, OpenController],
      providers: [Mailer],
      http: true,
    });
    behindProxy = await startApp(
      { ...base, keyPrefix: uniquePrefix(`rlproxy-${backend}`), rateLimit: { trustProxyHops: 1, legacyHeaders: true } },
      { controllers: [LimitedController], http: true },
    );
  });

  afterAll(async () => {
    await app?.close();
    await behindProxy?.close();
  });

  const hit = (target: INestApplication, path: string, headers: Record<string, string> = {}) => {
    const call = request(target.getHttpServer()).get(path);
    for (const [name, value] of Object.entries(headers)) call.set(name, value);
    return call;
  };

  it('sends the IETF headers, then 429 with Retry-After; the method overrides the class default', async () => {
    const first = await hit(app, '/rl/tight');
    expect(first.status).toBe(200);
    expect(first.headers['ratelimit-policy']).toBe('"default";q=2;w=60');
    expect(first.headers['ratelimit']).toBe('"default";r=1;t=60');
    expect(first.headers['x-ratelimit-limit']).toBeUndefined();
    // The class's guard and the method's both run: the request counts once, under the method's limit.
    expect((await hit(app, '/rl/tight')).status).toBe(200);
    const denied = await hit(app, '/rl/tight');
    expect(denied.status).toBe(429);
    expect(Number(denied.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(denied.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(denied.headers['ratelimit']).toMatch(/^"default";r=0;t=\d+$/);
    expect(denied.body).toMatchObject({ statusCode: 429 });
  });

  it('applies the class default to undecorated handlers, skips @SkipRateLimit and routes without metadata', async () => {
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await hit(app, '/rl/default')).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    for (let i = 0; i < 6; i++) {
      const free = await hit(app, '/rl/free');
      expect(free.status).toBe(200);
      expect(free.headers['ratelimit']).toBeUndefined();
    }
    for (let i = 0; i < 6; i++) expect((await hit(app, '/open')).status).toBe(200);
  });

  it('@RateLimit written twice on a handler: the upper limit, each request counted once', async () => {
    const first = await hit(app, '/rl/twice');
    expect([first.status, first.headers['ratelimit']]).toEqual([200, '"default";r=0;t=60']);
    expect((await hit(app, '/rl/twice')).status).toBe(429);
  });

  it("a subclass's own class default, not its parent's, decides its inherited routes, once per request", async () => {
    const first = await hit(app, '/child/default');
    expect([first.status, first.headers['ratelimit']]).toEqual([200, '"default";r=0;t=60']);
    expect((await hit(app, '/child/default')).status).toBe(429);
    // An inherited method's own limit (2) is still its guard's alone: neither class's guard counts it.
    expect((await hit(app, '/child/tight')).headers['ratelimit']).toBe('"default";r=1;t=60');
  });

  it('several policies: every policy in the headers, the denying one reported', async () => {
    await hit(app, '/rl/multi');
    const second = await hit(app, '/rl/multi');
    expect(second.headers['ratelimit-policy']).toBe('"p0";q=2;w=60, "p1";q=10;w=86400');
    expect(second.headers['ratelimit']).toMatch(/^"p0";r=0;t=60, "p1";r=8;t=\d+$/);
    const denied = await hit(app, '/rl/multi');
    expect(denied.status).toBe(429);
    // All-or-nothing: the denied call did not consume from the daily policy.
    expect(denied.headers['ratelimit']).toMatch(/"p1";r=8;/);
  });

  it('keys by a custom key function', async () => {
    const statuses = await Promise.all(
      ['ann', 'ann', 'ann', 'bob', 'bob'].map(async (user) => (await hit(app, '/rl/per-user', { 'x-user': user })).status),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(4);
    expect(statuses.filter((s) => s === 429)).toHaveLength(1);
  });

  it('ignores X-Forwarded-For without trusted proxies: rotating it buys nothing', async () => {
    const statuses = [];
    for (let i = 0; i < 10; i++) statuses.push((await hit(app, '/rl/default', { 'x-forwarded-for': `1.2.3.${i}` })).status);
    // The budget of 3 was spent from this socket address by the earlier test.
    expect(statuses.every((s) => s === 429)).toBe(true);
  });

  it('with trustProxyHops 1, counts per rightmost X-Forwarded-For entry; spoofed left entries change nothing', async () => {
    const spoofed = [];
    for (let i = 0; i < 6; i++) spoofed.push((await hit(behindProxy, '/rl/tight', { 'x-forwarded-for': `6.6.6.${i}, 10.0.0.1` })).status);
    expect(spoofed).toEqual([200, 200, 429, 429, 429, 429]);
    const other = await hit(behindProxy, '/rl/tight', { 'x-forwarded-for': '10.0.0.2' });
    expect(other.status).toBe(200);
    expect(other.headers['x-ratelimit-limit']).toBe('2');
    expect(other.headers['x-ratelimit-remaining']).toBe('1');
  });

  it('on a provider method, throws RateLimitDeniedError carrying the decision', async () => {
    const mailer = app.get(Mailer);
    const results = await Promise.allSettled(Array.from({ length: 5 }, () => mailer.send('ann@example.com')));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(2);
    const rejection = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(rejection.reason).toBeInstanceOf(RateLimitDeniedError);
    expect(rejection.reason.decision).toMatchObject({ allowed: false, limit: 2, remaining: 0 });
    expect(rejection.reason.decision.retryAfterMs).toBeGreaterThan(0);
    expect(mailer.sent).toBe(2);
    await expect(mailer.send('bob@example.com')).resolves.toBe('sent to bob@example.com');
  });

  // docs/decorator-mechanism.md: a controller's handlers are Nest's to call; the guard limits the router's calls, and a
  // controller method called by other code runs as written (a limit meant for such callers goes on a provider).
  it("limits the router's calls of a controller handler, not a direct call of the method", async () => {
    const controller = app.get(LimitedController);
    const direct = [controller.tight(), controller.tight(), controller.tight()];
    expect(direct).toEqual([{ ok: true }, { ok: true }, { ok: true }]);
  });
});

describe('@RateLimit with invalid options', () => {
  it('fails startup naming the field, on a controller handler', async () => {
    @Controller('bad')
    class BadController {
      @RateLimit({ algorithm: 'fixed-window', limit: 0, windowMs: 1000 })
      @Get()
      handler() {
        return 1;
      }
    }
    const error = await startApp(
      { connection: connectionFor('standalone'), keyPrefix: uniquePrefix('rlbad') },
      { controllers: [BadController] },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidOptionsError);
    expect((error as InvalidOptionsError).option).toBe('@RateLimit(BadController.handler).policy.limit');
  });

  it('fails startup naming the field, on a provider method and on a class default', async () => {
    @Injectable()
    class BadProvider {
      @RateLimit({ algorithm: 'sliding-log', limit: 3, windowMs: 1000, cost: 0.5 })
      async run() {}
    }
    const error = await startApp(
      { connection: connectionFor('standalone'), keyPrefix: uniquePrefix('rlbad') },
      { providers: [BadProvider] },
    ).catch((e: unknown) => e);
    expect((error as InvalidOptionsError).option).toBe('@RateLimit(BadProvider.run).cost');

    @Controller('bad-class')
    @RateLimit({ algorithm: 'token-bucket' as 'gcra', limit: 3, periodMs: 1000 })
    class BadClassController {
      @Get()
      handler() {
        return 1;
      }
    }
    const classError = await startApp(
      { connection: connectionFor('standalone'), keyPrefix: uniquePrefix('rlbad') },
      { controllers: [BadClassController] },
    ).catch((e: unknown) => e);
    expect((classError as InvalidOptionsError).option).toBe('@RateLimit(BadClassController).policy.capacity');
  });

  it("fails startup on the pre-1.0 name 'sliding-window', naming its new name 'sliding-log'", async () => {
    @Controller('renamed')
    class RenamedController {
      @RateLimit({ algorithm: 'sliding-window' as 'sliding-log', limit: 3, windowMs: 1000 })
      @Get()
      handler() {
        return 1;
      }
    }
    const error = await startApp(
      { connection: connectionFor('standalone'), keyPrefix: uniquePrefix('rlbad') },
      { controllers: [RenamedController] },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidOptionsError);
    expect((error as InvalidOptionsError).option).toBe('@RateLimit(RenamedController.handler).policy.algorithm');
    expect((error as InvalidOptionsError).message).toContain("'sliding-window' was renamed 'sliding-log' in 1.0");
  });
});
