import type { INestApplication } from '@nestjs/common';
import { InvalidArgumentError, RateLimiterService, type RateLimitPolicy } from 'nestjs-redis-patterns';
import { type BackendName, connectionOf, inspectKeys, type KeyInspector } from '../../support/backends';
import { uniquePrefix } from '../../support/redis-env';
import { startApp } from './rate-limit-app';

const MINUTE = 60_000;

const POLICIES: Record<string, RateLimitPolicy> = {
  'fixed-window': { algorithm: 'fixed-window', limit: 4, windowMs: MINUTE },
  'sliding-log': { algorithm: 'sliding-log', limit: 4, windowMs: MINUTE },
  'sliding-window-counter': { algorithm: 'sliding-window-counter', limit: 4, windowMs: MINUTE },
  // Refills one token a minute: nothing refills during the test.
  'token-bucket': { algorithm: 'token-bucket', capacity: 4, refillPerSecond: 1 / 60 },
  gcra: { algorithm: 'gcra', limit: 4, periodMs: 4 * MINUTE },
};

describe.each<BackendName>(['standalone', 'cluster', 'memory'])('rate-limit refund and penalize on %s', (backend) => {
  let apps: INestApplication[];
  let limiter: RateLimiterService;
  let keys: KeyInspector;
  const prefix = uniquePrefix(`rlrefund-${backend}`);

  beforeAll(async () => {
    apps = [];
    for (let i = 0; i < (backend === 'memory' ? 1 : 2); i++)
      apps.push(await startApp({ connection: connectionOf(backend), keyPrefix: prefix }));
    limiter = apps[0].get(RateLimiterService);
    keys = inspectKeys(backend, apps[0]);
  });

  afterAll(async () => {
    keys?.close();
    for (const app of apps ?? []) await app.close();
  });

  const allowedOf = async (key: string, policy: RateLimitPolicy, calls: number): Promise<number> =>
    (await Promise.all(Array.from({ length: calls }, () => limiter.consume(key, policy)))).filter((d) => d.allowed).length;

  it.each(Object.keys(POLICIES))('%s: a refund gives units back, never beyond the limit', async (name) => {
    const policy = POLICIES[name];
    const key = `refund-${name}`;
    expect(await allowedOf(key, policy, 6)).toBe(4);
    const [balance] = await limiter.refund(key, policy, 2);
    expect(balance).toMatchObject({ limit: 4, remaining: 2 });
    expect(await allowedOf(key, policy, 5)).toBe(2);
    // Refunding more than was used stops at a full budget.
    expect((await limiter.refund(key, policy, 100))[0].remaining).toBe(4);
    expect(await allowedOf(key, policy, 6)).toBe(4);
  });

  it.each(Object.keys(POLICIES))('%s: a penalty takes units without a decision, never beyond the limit', async (name) => {
    const policy = POLICIES[name];
    const key = `penalty-${name}`;
    const [balance] = await limiter.penalize(key, policy, 3);
    expect(balance).toMatchObject({ limit: 4, remaining: 1 });
    expect(balance.resetMs).toBeGreaterThan(0);
    expect(await allowedOf(key, policy, 3)).toBe(1);
    expect((await limiter.penalize(key, policy, 100))[0].remaining).toBe(0);
    // Never beyond the limit: one refund unit is one call again.
    await limiter.refund(key, policy);
    expect(await allowedOf(key, policy, 3)).toBe(1);
  });

  it('a refund on an identity with no state writes nothing', async () => {
    for (const [name, policy] of Object.entries(POLICIES)) {
      expect((await limiter.refund(`fresh-${name}`, policy, 3))[0].remaining).toBe(4);
    }
    expect((await keys.keys(`${prefix}:rl:`)).filter((key) => key.includes('{fresh-'))).toEqual([]);
  });

  it('refunds and decisions racing across instances stay exact: admitted + left equals what was refunded', async () => {
    const policy: RateLimitPolicy = { algorithm: 'fixed-window', limit: 10, windowMs: MINUTE };
    const services = apps.map((app) => app.get(RateLimiterService));
    expect(await allowedOf('race', policy, 15)).toBe(10);
    const work: Array<Promise<unknown>> = [];
    let admitted = 0;
    for (let i = 0; i < 30; i++) {
      const service = services[i % services.length];
      work.push(service.consume('race', policy).then((d) => void (admitted += d.allowed ? 1 : 0)));
      if (i % 6 === 0) work.push(service.refund('race', policy));
    }
    await Promise.all(work);
    const left = (await limiter.consume('race', policy, { cost: 0 })).remaining;
    expect(admitted).toBeLessThanOrEqual(5);
    expect(admitted + left).toBe(5);
  });

  it('refunds every policy of a limiter at once, each within its limit', async () => {
    const policies: RateLimitPolicy[] = [
      { algorithm: 'sliding-log', limit: 2, windowMs: MINUTE },
      { algorithm: 'fixed-window', limit: 5, windowMs: 86_400_000 },
    ];
    for (let i = 0; i < 2; i++) expect((await limiter.consume('multi', policies)).allowed).toBe(true);
    expect((await limiter.consume('multi', policies)).allowed).toBe(false);
    const balances = await limiter.refund('multi', policies);
    expect(balances.map((b) => b.remaining)).toEqual([1, 4]);
    expect((await limiter.consume('multi', policies)).allowed).toBe(true);
  });

  it('leaves a block in force: a refund does not lift it', async () => {
    const policy: RateLimitPolicy = { algorithm: 'fixed-window', limit: 1, windowMs: MINUTE, blockDurationMs: 30_000 };
    expect(await allowedOf('blocked', policy, 2)).toBe(1);
    await limiter.refund('blocked', policy);
    const decision = await limiter.consume('blocked', policy);
    expect(decision.allowed).toBe(false);
    expect(decision.retryAfterMs).toBeGreaterThan(25_000);
  });

  it('writes every key with a TTL', async () => {
    expect(await keys.keysWithoutTtl(`${prefix}:rl:`)).toEqual([]);
  });

  it('rejects invalid input naming the field, before writing', async () => {
    const error = await limiter.refund('x', POLICIES['fixed-window'], 0.5).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect((error as InvalidArgumentError).argument).toBe('cost');
    const bad = await limiter.penalize('x', { algorithm: 'gcra', limit: 0, periodMs: 1 }).catch((e: unknown) => e);
    expect((bad as InvalidArgumentError).argument).toBe('policy.limit');
    // Fractional units where the algorithm counts them.
    expect((await limiter.penalize('frac', POLICIES['token-bucket'], 0.5))[0].remaining).toBe(3);
  });
});
