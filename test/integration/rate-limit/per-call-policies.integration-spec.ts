import { Controller, Get, Injectable, type INestApplication } from '@nestjs/common';
import request from 'supertest';
import { InvalidOptionsError, RateLimit, type RateLimitPolicy, RateLimitDeniedError } from 'nestjs-redis-patterns';
import { type BackendName, connectionOf } from '../../support/backends';
import { uniquePrefix } from '../../support/redis-env';
import { startApp } from './rate-limit-app';

const MINUTE = 60_000;
type Plan = 'free' | 'pro';
interface PlanRequest {
  headers: Record<string, string | undefined>;
}

const planOf = (req: PlanRequest): Plan => (req.headers['x-plan'] === 'pro' ? 'pro' : 'free');
const userOf = (req: PlanRequest): string => req.headers['x-user'] ?? 'anonymous';
// Built per call on purpose: the library must compile each shape once, not each call.
const policyFor = (plan: Plan): RateLimitPolicy => ({ algorithm: 'fixed-window', limit: plan === 'pro' ? 5 : 2, windowMs: MINUTE });

@Controller('plans')
class PlansController {
  @RateLimit((req: PlanRequest) => policyFor(planOf(req)), { key: (req: PlanRequest) => userOf(req) })
  @Get('report')
  report() {
    return { ok: true };
  }

  // Asynchronous, two policies for pro.
  @RateLimit(
    async (req: PlanRequest) =>
      planOf(req) === 'pro'
        ? [
            { algorithm: 'sliding-log', limit: 3, windowMs: MINUTE },
            { algorithm: 'fixed-window', limit: 100, windowMs: 86_400_000 },
          ]
        : { algorithm: 'sliding-log', limit: 1, windowMs: MINUTE },
    { key: (req: PlanRequest) => userOf(req) },
  )
  @Get('export')
  export() {
    return { ok: true };
  }

  @RateLimit({ algorithm: 'fixed-window', limit: 1, windowMs: MINUTE, skipIf: (req: PlanRequest) => req.headers['x-internal'] === 'yes' })
  @Get('skippable')
  skippable() {
    return { ok: true };
  }

  @RateLimit({ algorithm: 'fixed-window', limit: 1, windowMs: MINUTE })
  @Get('global-skip')
  globalSkip() {
    return { ok: true };
  }

  @RateLimit((req: PlanRequest) => ({ algorithm: 'fixed-window', limit: Number(req.headers['x-limit']), windowMs: MINUTE }))
  @Get('bad')
  bad() {
    return { ok: true };
  }
}

@Injectable()
class Exporter {
  runs = 0;

  @RateLimit((tenant: { plan: Plan }) => policyFor(tenant.plan), {
    key: (tenant: { id: string }) => tenant.id,
    skipIf: (tenant: { id: string }) => tenant.id === 'ops',
  })
  async run(tenant: { id: string; plan: Plan }): Promise<string> {
    this.runs++;
    return tenant.id;
  }
}

describe.each<BackendName>(['standalone', 'cluster', 'memory'])('@RateLimit policies per call and skip rules on %s', (backend) => {
  let apps: INestApplication[];

  beforeAll(async () => {
    const options = {
      connection: connectionOf(backend),
      keyPrefix: uniquePrefix(`rlcall-${backend}`),
      rateLimit: {
        skipIf: (context: { switchToHttp(): { getRequest(): PlanRequest } }) =>
          context.switchToHttp().getRequest().headers['x-health'] === '1',
      },
    };
    // Two instances on one Redis (in memory mode each instance has its own state: one instance there).
    const count = backend === 'memory' ? 1 : 2;
    apps = [];
    for (let i = 0; i < count; i++)
      apps.push(await startApp(options, { controllers: [PlansController], providers: [Exporter], http: true }));
  });

  afterAll(async () => {
    for (const app of apps ?? []) await app.close();
  });

  const get = (path: string, headers: Record<string, string>, app = apps[0]) => {
    const call = request(app.getHttpServer()).get(path);
    for (const [name, value] of Object.entries(headers)) call.set(name, value);
    return call;
  };

  it('takes the policy from the request, exactly across instances under concurrency', async () => {
    const calls = (user: string, plan: Plan) =>
      Array.from({ length: 20 }, (_, i) => get('/plans/report', { 'x-user': user, 'x-plan': plan }, apps[i % apps.length]));
    const [free, pro] = await Promise.all([Promise.all(calls('ann', 'free')), Promise.all(calls('bob', 'pro'))]);
    expect(free.filter((r) => r.status === 200)).toHaveLength(2);
    expect(free.filter((r) => r.status === 429)).toHaveLength(18);
    expect(pro.filter((r) => r.status === 200)).toHaveLength(5);
    // The headers describe the policy of the call.
    expect(pro.find((r) => r.status === 200)!.headers['ratelimit-policy']).toBe('"default";q=5;w=60');
    expect(free.find((r) => r.status === 200)!.headers['ratelimit-policy']).toBe('"default";q=2;w=60');
  });

  it('accepts an asynchronous policy function returning one policy or several', async () => {
    const pro = [];
    for (let i = 0; i < 4; i++) pro.push((await get('/plans/export', { 'x-user': 'cat', 'x-plan': 'pro' })).status);
    expect(pro).toEqual([200, 200, 200, 429]);
    const headers = (await get('/plans/export', { 'x-user': 'dan', 'x-plan': 'pro' })).headers;
    expect(headers['ratelimit-policy']).toBe('"p0";q=3;w=60, "p1";q=100;w=86400');
    const free = [];
    for (let i = 0; i < 2; i++) free.push((await get('/plans/export', { 'x-user': 'eve', 'x-plan': 'free' })).status);
    expect(free).toEqual([200, 429]);
  });

  it("skips calls the decorator's skipIf exempts, and counts nothing for them", async () => {
    for (let i = 0; i < 5; i++) expect((await get('/plans/skippable', { 'x-internal': 'yes' })).status).toBe(200);
    // The budget of 1 is untouched by the skipped calls.
    expect((await get('/plans/skippable', {})).status).toBe(200);
    expect((await get('/plans/skippable', {})).status).toBe(429);
    expect((await get('/plans/skippable', { 'x-internal': 'yes' })).status).toBe(200);
  });

  it("skips every limiter for calls the module's rateLimit.skipIf exempts", async () => {
    for (let i = 0; i < 4; i++) expect((await get('/plans/global-skip', { 'x-health': '1' })).status).toBe(200);
    expect((await get('/plans/global-skip', {})).status).toBe(200);
    expect((await get('/plans/global-skip', {})).status).toBe(429);
    for (let i = 0; i < 3; i++) expect((await get('/plans/report', { 'x-user': 'health', 'x-health': '1' })).status).toBe(200);
  });

  it('on a provider method, takes the policy and the skip rule from the arguments', async () => {
    const exporter = apps[0].get(Exporter);
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => exporter.run({ id: 'acme', plan: 'free' })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(2);
    const denied = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(denied.reason).toBeInstanceOf(RateLimitDeniedError);
    expect(denied.reason.decision).toMatchObject({ allowed: false, limit: 2 });
    const pro = await Promise.allSettled(Array.from({ length: 8 }, () => exporter.run({ id: 'globex', plan: 'pro' })));
    expect(pro.filter((r) => r.status === 'fulfilled')).toHaveLength(5);
    const ops = await Promise.allSettled(Array.from({ length: 8 }, () => exporter.run({ id: 'ops', plan: 'free' })));
    expect(ops.every((r) => r.status === 'fulfilled')).toBe(true);
    expect(exporter.runs).toBe(2 + 5 + 8);
  });

  it('rejects an invalid policy returned for a call, naming the field, and never calls the handler', async () => {
    const response = await get('/plans/bad', { 'x-limit': '0' });
    expect(response.status).toBe(500);
    expect((await get('/plans/bad', { 'x-limit': '3' })).status).toBe(200);
  });
});

describe('@RateLimit policy functions: validation', () => {
  it('names the field of an invalid policy a function returned', async () => {
    @Injectable()
    class Jobs {
      @RateLimit(() => ({ algorithm: 'fixed-window', limit: -1, windowMs: 1000 }) as RateLimitPolicy)
      async run(): Promise<void> {}
    }
    const app = await startApp({ connection: connectionOf('memory'), keyPrefix: uniquePrefix('rlcall-bad') }, { providers: [Jobs] });
    try {
      const error = await app
        .get(Jobs)
        .run()
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidOptionsError);
      expect((error as InvalidOptionsError).option).toBe('@RateLimit(Jobs.run).policy.limit');
    } finally {
      await app.close();
    }
  });

  it('fails startup when skipIf is not a function, naming it', async () => {
    @Injectable()
    class Jobs {
      @RateLimit({ algorithm: 'fixed-window', limit: 1, windowMs: 1000, skipIf: true as unknown as () => boolean })
      async run(): Promise<void> {}
    }
    const error = await startApp(
      { connection: connectionOf('memory'), keyPrefix: uniquePrefix('rlcall-bad2') },
      { providers: [Jobs] },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidOptionsError);
    expect((error as InvalidOptionsError).option).toBe('@RateLimit(Jobs.run).skipIf');
  });
});
