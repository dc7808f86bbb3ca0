import { Controller, Get, type INestApplication } from '@nestjs/common';
import request from 'supertest';
import { InvalidArgumentError, RateLimit, RateLimiterService, type RateLimitPolicy } from 'nestjs-redis-patterns';
import { type BackendName, connectionOf, inspectKeys, type KeyInspector } from '../../support/backends';
import { uniquePrefix, waitFor } from '../../support/redis-env';
import { startApp } from './rate-limit-app';

const MINUTE = 60_000;

@Controller('blocked')
class LoginController {
  // The block outlasts the window: a denied client waits for the block, not for the window.
  @RateLimit({ algorithm: 'fixed-window', limit: 2, windowMs: 10_000, blockDurationMs: 30_000 })
  @Get('login')
  login() {
    return { ok: true };
  }
}

describe.each<BackendName>(['standalone', 'cluster', 'memory'])('rate-limit block duration on %s', (backend) => {
  let apps: INestApplication[];
  let limiter: RateLimiterService;
  let keys: KeyInspector;
  const prefix = uniquePrefix(`rlblock-${backend}`);

  beforeAll(async () => {
    apps = [];
    // Two instances on one Redis (memory mode has one instance's state: one instance there).
    for (let i = 0; i < (backend === 'memory' ? 1 : 2); i++) {
      apps.push(await startApp({ connection: connectionOf(backend), keyPrefix: prefix }, { controllers: [LoginController], http: true }));
    }
    limiter = apps[0].get(RateLimiterService);
    keys = inspectKeys(backend, apps[0]);
  });

  afterAll(async () => {
    keys?.close();
    for (const app of apps ?? []) await app.close();
  });

  it('keeps an identity denied for the block after a denial, though its budget refills meanwhile', async () => {
    // 10 tokens a second: without the block, the bucket holds the 2 tokens of the last call again 200 ms after the
    // denial, well inside the block (and far longer than the three calls below take on a loaded machine).
    const policy: RateLimitPolicy = { algorithm: 'token-bucket', capacity: 2, refillPerSecond: 10, blockDurationMs: 600 };
    expect((await limiter.consume('bucket', policy)).allowed).toBe(true);
    expect((await limiter.consume('bucket', policy)).allowed).toBe(true);
    const deniedAt = performance.now();
    const denial = await limiter.consume('bucket', policy, { cost: 2 });
    expect(denial.allowed).toBe(false);
    expect(denial.retryAfterMs).toBeGreaterThan(500);
    expect(denial.retryAfterMs).toBeLessThanOrEqual(600);
    // Blocked: denied, and the calls made during the block are not counted (the bucket keeps refilling).
    const during = await limiter.consume('bucket', policy);
    expect(during).toMatchObject({ allowed: false, remaining: 0 });
    expect(during.retryAfterMs).toBeGreaterThan(0);
    // A peek reports the block and does not extend it.
    expect((await limiter.consume('bucket', policy, { cost: 0 })).allowed).toBe(false);
    await waitFor(async () => (await limiter.consume('bucket', policy, { cost: 0 })).allowed, 5000);
    // The block is the server's TTL: it cannot end before its duration (less the time the first call took).
    expect(performance.now() - deniedAt).toBeGreaterThan(550);
    expect(await limiter.consume('bucket', policy, { cost: 2 })).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('admits exactly the limit under concurrency across instances, then blocks every caller', async () => {
    const policy: RateLimitPolicy = { algorithm: 'sliding-log', limit: 5, windowMs: MINUTE, blockDurationMs: 20_000 };
    const services = apps.map((app) => app.get(RateLimiterService));
    const decisions = await Promise.all(Array.from({ length: 60 }, (_, i) => services[i % services.length].consume('crowd', policy)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(5);
    for (const denied of decisions.filter((d) => !d.allowed)) expect(denied.retryAfterMs).toBeGreaterThan(19_000);
    const blockKey = (await keys.keys(`${prefix}:rl:`)).find((key) => key.includes('{crowd}') && key.endsWith(':blk'));
    expect(blockKey).toBeDefined();
    const ttl = await keys.pttl(blockKey!);
    expect(ttl).toBeGreaterThan(15_000);
    expect(ttl).toBeLessThanOrEqual(20_000);
    // reset() forgets the block with the state.
    await limiter.reset('crowd', policy);
    expect(await keys.exists(blockKey!)).toBe(0);
    expect((await limiter.consume('crowd', policy)).allowed).toBe(true);
  });

  it('blocks only by the policy that has a block duration, all-or-nothing with the others', async () => {
    const policies: RateLimitPolicy[] = [
      { algorithm: 'fixed-window', limit: 3, windowMs: MINUTE },
      { algorithm: 'gcra', limit: 100, periodMs: MINUTE, burst: 50, blockDurationMs: 15_000 },
    ];
    // The first policy denies the fourth call: no block (it has none), nothing consumed from the second.
    const first = await Promise.all(Array.from({ length: 4 }, () => limiter.consume('pair', policies)));
    expect(first.filter((d) => d.allowed)).toHaveLength(3);
    expect(first.find((d) => !d.allowed)!.policyIndex).toBe(0);
    expect((await keys.keys(`${prefix}:rl:`)).some((key) => key.includes('{pair}') && key.endsWith(':blk'))).toBe(false);
    // A cost the second policy cannot cover starts its block: then a call both budgets would admit is denied by it.
    expect((await limiter.consume('pair2', policies, { cost: 60 })).allowed).toBe(false);
    const blocked = await limiter.consume('pair2', policies);
    expect(blocked).toMatchObject({ allowed: false, policyIndex: 1 });
    expect(blocked.retryAfterMs).toBeGreaterThan(14_000);
    expect(blocked.retryAfterMs).toBeLessThanOrEqual(15_000);
    expect(blocked.policies[0]).toMatchObject({ remaining: 3, retryAfterMs: 0 });
  });

  it('answers 429 with a Retry-After of the block on a decorated route', async () => {
    const statuses: number[] = [];
    let last: request.Response | undefined;
    for (let i = 0; i < 4; i++) {
      last = await request(apps[i % apps.length].getHttpServer()).get('/blocked/login');
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 429, 429]);
    expect(Number(last!.headers['retry-after'])).toBeGreaterThan(25);
    expect(Number(last!.headers['retry-after'])).toBeLessThanOrEqual(30);
  });

  it('writes every key with a TTL, the block keys included', async () => {
    expect(await keys.keysWithoutTtl(`${prefix}:rl:`)).toEqual([]);
  });

  it('rejects an invalid block duration, naming it', async () => {
    const error = await limiter
      .consume('x', { algorithm: 'fixed-window', limit: 1, windowMs: 1000, blockDurationMs: 0.5 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect((error as InvalidArgumentError).argument).toBe('policy.blockDurationMs');
  });
});
