import type { INestApplication } from '@nestjs/common';
import type { Cluster, Redis } from 'ioredis';
import { InvalidArgumentError, type RateLimitPolicy, RateLimiterService } from 'nestjs-redis-patterns';
import { type BackendName, connectionOf, inspectKeys, type KeyInspector } from '../../support/backends';
import { connectionFor, rawClient, type TopologyName, uniquePrefix, waitFor } from '../../support/redis-env';
import { startApp } from './rate-limit-app';

const LONG = 60_000;
const EXACT: RateLimitPolicy[] = [
  { algorithm: 'fixed-window', limit: 100, windowMs: LONG },
  { algorithm: 'sliding-log', limit: 100, windowMs: LONG },
  { algorithm: 'sliding-window-counter', limit: 100, windowMs: LONG },
  { algorithm: 'token-bucket', capacity: 100, refillPerSecond: 0.001 },
  { algorithm: 'gcra', limit: 100, periodMs: 3_600_000 },
];

describe.each<BackendName>(['standalone', 'cluster', 'memory'])('RateLimiterService on %s', (backend) => {
  const prefix = uniquePrefix(`rl-${backend}`);
  // On Redis, three application instances with their own connections share one deployment; in memory, one instance
  // (memory is per process) takes every call.
  const instances = backend === 'memory' ? 1 : 3;
  const source = backend === 'memory' ? 'memory' : 'redis';
  let apps: INestApplication[];
  let limiters: RateLimiterService[];
  let limiter: RateLimiterService;
  let keys: KeyInspector;

  beforeAll(async () => {
    // Exactness is the subject here, not outages: a generous deadline keeps a busy shared server (other specs run in
    // parallel on it) from turning a burst of thousands of decisions into fail-open answers.
    apps = await Promise.all(
      Array.from({ length: instances }, () => startApp({ connection: connectionOf(backend), keyPrefix: prefix, commandTimeoutMs: 5000 })),
    );
    limiters = [0, 1, 2].map((i) => apps[i % instances].get(RateLimiterService));
    limiter = limiters[0];
    keys = inspectKeys(backend, apps[0]);
  });

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    keys.close();
  });

  afterEach(() => jest.restoreAllMocks());

  it.each(EXACT.map((p) => [p.algorithm, p] as const))(
    '%s: 300 concurrent calls (from 3 instances on Redis) allow exactly the limit',
    async (_, policy) => {
      const key = `exact-${policy.algorithm}`;
      const decisions = await Promise.all(Array.from({ length: 300 }, (_, i) => limiters[i % 3].consume(key, policy)));
      expect(decisions.filter((d) => d.allowed)).toHaveLength(100);
      expect(decisions.every((d) => d.source === source)).toBe(true);
      const denied = decisions.find((d) => !d.allowed)!;
      expect(denied.remaining).toBe(0);
      expect(denied.retryAfterMs).toBeGreaterThan(0);
    },
  );

  it('gcra: a burst is counted exactly even where the emission interval is no exact float (6561 per day)', async () => {
    // 86_400_000 / 6561 ms per unit: a theoretical arrival time near 1.8e12 ms added up 6561 times drifts by a
    // whole unit (6560 allowed); counted as tokens it does not. Refill during the test: 1 unit per 13 s.
    const policy: RateLimitPolicy = { algorithm: 'gcra', limit: 6561, periodMs: 86_400_000 };
    const decisions = await Promise.all(Array.from({ length: 6600 }, (_, i) => limiters[i % 3].consume('gcra-exact', policy)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(6561);
    expect(decisions.every((d) => d.source === source)).toBe(true);
  });

  it('fixed window: denies past the limit, then rolls over when the window ends', async () => {
    const policy: RateLimitPolicy = { algorithm: 'fixed-window', limit: 3, windowMs: 400 };
    const first = await limiter.consume('fw-roll', policy);
    expect(first).toMatchObject({ allowed: true, limit: 3, remaining: 2 });
    await limiter.consume('fw-roll', policy);
    await limiter.consume('fw-roll', policy);
    const denied = await limiter.consume('fw-roll', policy);
    expect(denied.allowed).toBe(false);
    expect(denied.retryAfterMs).toBeGreaterThan(0);
    expect(denied.retryAfterMs).toBeLessThanOrEqual(400);
    await waitFor(async () => (await limiter.consume('fw-roll', policy)).allowed, 3000);
    // The new window started with that call: two left.
    expect((await limiter.consume('fw-roll', policy, { cost: 0 })).remaining).toBe(2);
  });

  it('sliding log: a slot frees exactly when the oldest hit leaves the window', async () => {
    const policy: RateLimitPolicy = { algorithm: 'sliding-log', limit: 2, windowMs: 600 };
    await limiter.consume('sw', policy);
    await waitFor(async () => (await limiter.consume('sw', policy, { cost: 0 })).resetMs < 450, 2000);
    await limiter.consume('sw', policy);
    const denied = await limiter.consume('sw', policy);
    expect(denied.allowed).toBe(false);
    // Waiting for the first hit to leave, not for the whole window.
    expect(denied.retryAfterMs).toBeLessThan(450);
    await waitFor(async () => (await limiter.consume('sw', policy)).allowed, 2000);
    // Only one slot freed: the second hit is still inside the window.
    expect((await limiter.consume('sw', policy)).allowed).toBe(false);
  });

  it('sliding window counter: weighs the previous window', async () => {
    const policy: RateLimitPolicy = { algorithm: 'sliding-window-counter', limit: 4, windowMs: 500 };
    const decisions = await Promise.all(Array.from({ length: 6 }, () => limiter.consume('swc', policy)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(4);
    const denied = decisions.find((d) => !d.allowed)!;
    // Cannot fit before the next window at the earliest, and fits within two windows.
    expect(denied.retryAfterMs).toBeGreaterThan(0);
    expect(denied.retryAfterMs).toBeLessThanOrEqual(1000);
    await waitFor(async () => (await limiter.consume('swc', policy)).allowed, 3000);
  });

  it('token bucket: refills at the configured (fractional) rate', async () => {
    const policy: RateLimitPolicy = { algorithm: 'token-bucket', capacity: 5, refillPerSecond: 10 };
    const burst = await Promise.all(Array.from({ length: 6 }, () => limiter.consume('tb', policy)));
    expect(burst.filter((d) => d.allowed)).toHaveLength(5);
    const denied = burst.find((d) => !d.allowed)!;
    expect(denied.limit).toBe(5);
    expect(denied.retryAfterMs).toBeGreaterThan(0);
    expect(denied.retryAfterMs).toBeLessThanOrEqual(100);
    await waitFor(async () => (await limiter.consume('tb', policy)).allowed, 2000);

    const slow: RateLimitPolicy = { algorithm: 'token-bucket', capacity: 1, refillPerSecond: 0.5 };
    expect((await limiter.consume('tb-slow', slow)).allowed).toBe(true);
    const wait = await limiter.consume('tb-slow', slow);
    expect(wait.allowed).toBe(false);
    expect(wait.retryAfterMs).toBeGreaterThan(1800);
    expect(wait.retryAfterMs).toBeLessThanOrEqual(2000);
    // Fractional costs are fine for a token bucket.
    expect((await limiter.consume('tb-frac', slow, { cost: 0.5 })).remaining).toBe(0);
    expect((await limiter.consume('tb-frac', slow, { cost: 0.5 })).allowed).toBe(true);
    expect((await limiter.consume('tb-frac', slow, { cost: 0.5 })).allowed).toBe(false);
  });

  it('GCRA: allows the burst at once, then one unit per emission interval', async () => {
    const policy: RateLimitPolicy = { algorithm: 'gcra', limit: 10, periodMs: 2000, burst: 3 };
    const burst = await Promise.all(Array.from({ length: 5 }, () => limiter.consume('gcra', policy)));
    expect(burst.filter((d) => d.allowed)).toHaveLength(3);
    const denied = burst.find((d) => !d.allowed)!;
    expect(denied.limit).toBe(3);
    expect(denied.retryAfterMs).toBeGreaterThan(0);
    expect(denied.retryAfterMs).toBeLessThanOrEqual(200);
    await waitFor(async () => (await limiter.consume('gcra', policy)).allowed, 2000);
    // One interval refilled one unit, not the burst.
    expect((await limiter.consume('gcra', policy)).allowed).toBe(false);
  });

  it('several policies: one decision, all-or-nothing, reports the denying policy', async () => {
    const perMinute: RateLimitPolicy = { algorithm: 'sliding-log', limit: 5, windowMs: LONG };
    const perDay: RateLimitPolicy = { algorithm: 'fixed-window', limit: 3, windowMs: 86_400_000 };
    const both = [perMinute, perDay];
    const decisions = await Promise.all(Array.from({ length: 50 }, (_, i) => limiters[i % 3].consume('multi', both)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(3);
    const denied = decisions.find((d) => !d.allowed)!;
    expect(denied.policyIndex).toBe(1);
    expect(denied.limit).toBe(3);
    expect(denied.policies).toHaveLength(2);
    // The 47 denied calls consumed nothing from the per-minute policy.
    expect((await limiter.consume('multi', perMinute, { cost: 0 })).remaining).toBe(2);
    const allowed = decisions.find((d) => d.allowed && d.remaining === 0)!;
    expect(allowed.policyIndex).toBe(1);
  });

  it('reset() forgets an identity', async () => {
    const policy: RateLimitPolicy = { algorithm: 'fixed-window', limit: 1, windowMs: LONG };
    await limiter.consume('to-reset', policy);
    expect((await limiter.consume('to-reset', policy)).allowed).toBe(false);
    await limiter.reset('to-reset', policy);
    expect((await limiter.consume('to-reset', policy)).allowed).toBe(true);
  });

  it.each([
    [{ algorithm: 'fixed-window', limit: 0, windowMs: 1000 }, undefined, 'policy.limit'],
    [{ algorithm: 'sliding-log', limit: 5, windowMs: -1 }, undefined, 'policy.windowMs'],
    [{ algorithm: 'leaky-bucket', limit: 5, windowMs: 1000 }, undefined, 'policy.algorithm'],
    [{ algorithm: 'token-bucket', capacity: 5, refillPerSecond: 0 }, undefined, 'policy.refillPerSecond'],
    [{ algorithm: 'gcra', limit: 5, periodMs: 1000, burst: 0 }, undefined, 'policy.burst'],
    [
      [
        { algorithm: 'fixed-window', limit: 5, windowMs: 1000 },
        { algorithm: 'gcra', limit: 5, periodMs: 0 },
      ],
      undefined,
      'policy[1].periodMs',
    ],
    [{ algorithm: 'fixed-window', limit: 5, windowMs: 1000 }, 1.5, 'cost'],
    [{ algorithm: 'token-bucket', capacity: 5, refillPerSecond: 1 }, -1, 'cost'],
  ])('rejects %j (cost %s) naming %s, writing nothing', async (policy, cost, field) => {
    const key = `bad-${field}`;
    const error = await limiter.consume(key, policy as RateLimitPolicy, { cost }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect((error as InvalidArgumentError).argument).toBe(field);
    expect((error as Error).message).toContain(field);
    expect(await keys.keys(`${prefix}:rl:{bad-`)).toEqual([]);
  });

  it('writes every key with a TTL no longer than its algorithm needs', async () => {
    expect(await keys.keysWithoutTtl(`${prefix}:`)).toEqual([]);
    const written = await keys.keys(`${prefix}:rl:`);
    // The five exact-limit identities above live for a minute or more: each left its key.
    expect(written.filter((key) => key.includes('{exact-')).length).toBeGreaterThanOrEqual(5);
    const ttls = await Promise.all(written.map((key) => keys.pttl(key)));
    written.forEach((key, i) => {
      if (key.endsWith(':fw:100:60000') || key.endsWith(':sw:100:60000')) expect(ttls[i]).toBeLessThanOrEqual(LONG);
      if (key.endsWith(':swc2:100:60000')) expect(ttls[i]).toBeLessThanOrEqual(2 * LONG);
      // Token bucket: the time to refill what was taken (100 tokens at 0.001/s); GCRA: 100 intervals of 36 s.
      if (key.endsWith(':gcra2:100:3600000:100')) expect(ttls[i]).toBeLessThanOrEqual(3_600_000);
    });
  });
});

describe.each<TopologyName>(['standalone', 'cluster'])('RateLimiterService on %s: what only Redis does', (topology) => {
  const prefix = uniquePrefix(`rl-redis-${topology}`);
  let apps: INestApplication[];
  let limiters: RateLimiterService[];
  let limiter: RateLimiterService;
  let admin: Redis | Cluster;

  beforeAll(async () => {
    admin = rawClient(topology);
    apps = await Promise.all([0, 1, 2].map(() => startApp({ connection: connectionFor(topology), keyPrefix: prefix })));
    limiters = apps.map((app) => app.get(RateLimiterService));
    limiter = limiters[0];
  });

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    admin.disconnect();
  });

  afterEach(() => jest.restoreAllMocks());

  it('takes time from Redis: moving the app clock changes no decision', async () => {
    const fixed: RateLimitPolicy = { algorithm: 'fixed-window', limit: 2, windowMs: LONG };
    const bucket: RateLimitPolicy = { algorithm: 'token-bucket', capacity: 2, refillPerSecond: 0.01 };
    const gcra: RateLimitPolicy = { algorithm: 'gcra', limit: 2, periodMs: LONG };
    const log: RateLimitPolicy = { algorithm: 'sliding-log', limit: 2, windowMs: LONG };
    for (const policy of [fixed, bucket, gcra, log]) {
      await limiter.consume(`clock-${policy.algorithm}`, policy, { cost: 2 });
    }
    const real = Date.now();
    jest.spyOn(Date, 'now').mockReturnValue(real + 24 * 3600 * 1000);
    for (const policy of [fixed, bucket, gcra, log]) {
      expect((await limiters[1].consume(`clock-${policy.algorithm}`, policy)).allowed).toBe(false);
    }
    jest.spyOn(Date, 'now').mockReturnValue(real - 24 * 3600 * 1000);
    for (const policy of [fixed, bucket, gcra, log]) {
      expect((await limiters[2].consume(`clock-${policy.algorithm}`, policy)).allowed).toBe(false);
    }
  });

  it('recovers from SCRIPT FLUSH without an error', async () => {
    const policy: RateLimitPolicy = { algorithm: 'fixed-window', limit: 10, windowMs: LONG };
    await limiter.consume('flush', policy);
    const nodes = 'nodes' in admin ? (admin as Cluster).nodes('master') : [admin];
    await Promise.all(nodes.map((node) => node.script('FLUSH')));
    const decision = await limiter.consume('flush', policy);
    expect(decision).toMatchObject({ allowed: true, remaining: 8, source: 'redis' });
  });
});
