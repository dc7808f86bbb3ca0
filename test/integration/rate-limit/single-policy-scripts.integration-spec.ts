import type { INestApplication } from '@nestjs/common';
import type Redis from 'ioredis';
import { type Cluster } from 'ioredis';
import { type RateLimitPolicy, RateLimiterService, RedisConnections } from 'nestjs-redis-patterns';
import { RedisExecutor } from '../../../libs/redis-patterns/src/core/scripts/redis-executor';
import { compilePolicies } from '../../../libs/redis-patterns/src/rate-limit/compile-policies';
import { RATE_LIMIT_SCRIPTS } from '../../../libs/redis-patterns/src/rate-limit/script-call';
import { CONSUME_SCRIPT } from '../../../libs/redis-patterns/src/rate-limit/scripts/consume.script';
import { multiFixedWindowScript } from '../../../libs/redis-patterns/src/rate-limit/scripts/multi-fixed-window.script';
import { connectionFor, keysWithoutTtl, type TopologyName, uniquePrefix } from '../../support/redis-env';
import { startApp } from './rate-limit-app';

// The single-policy scripts (written from the algorithms' functions) must decide exactly as the generic script does
// with one policy: same allowed/remaining, same reset and retry (up to the time between the two calls' TIME).
const CASES: Array<[RateLimitPolicy, number[]]> = [
  [{ algorithm: 'fixed-window', limit: 5, windowMs: 60_000 }, [0, 1, 2, 0, 3, 2, 1, 0, 6, 1]],
  [{ algorithm: 'sliding-log', limit: 5, windowMs: 60_000 }, [0, 1, 2, 0, 3, 2, 1, 0, 6, 1]],
  [{ algorithm: 'sliding-window-counter', limit: 5, windowMs: 60_000 }, [0, 1, 2, 0, 3, 2, 1, 0, 6, 1]],
  [{ algorithm: 'token-bucket', capacity: 5, refillPerSecond: 0.001 }, [0, 1, 2.5, 0, 2, 1.5, 0.5, 0, 6, 1]],
  [{ algorithm: 'gcra', limit: 5, periodMs: 3_600_000 }, [0, 1, 2.5, 0, 2, 1.5, 0.5, 0, 6, 1]],
];

const error = (field: string) => new Error(field);

describe.each<TopologyName>(['standalone', 'cluster'])('single-policy scripts on %s', (topology) => {
  const prefix = uniquePrefix(`rl-single-${topology}`);
  let app: INestApplication;
  let client: Redis | Cluster;

  beforeAll(async () => {
    app = await startApp({ connection: connectionFor(topology), keyPrefix: prefix });
    client = app.get(RedisConnections).get();
  });

  afterAll(() => app.close());

  it.each(CASES.map(([policy, costs]) => [policy.algorithm, policy, costs] as const))(
    '%s: decides like the generic script, step by step',
    async (algorithm, policy, costs) => {
      const compiled = compilePolicies(policy, 'policy', error);
      expect(compiled.call.script).not.toBe(CONSUME_SCRIPT);
      // One hash tag for both keys: one slot, so the pair runs back to back on the same node.
      const single = `${prefix}:rl:{eq-${algorithm}}:single`;
      const generic = `${prefix}:rl:{eq-${algorithm}}:generic`;
      const [p] = compiled.policies;
      let sequence = 0;
      for (const cost of costs) {
        const nonce = `n${sequence++}`;
        const singleArgs = algorithm === 'sliding-log' ? [cost, p.a, p.b, nonce] : [cost, p.a, p.b];
        const [mine, reference] = await Promise.all([
          RedisExecutor.of(client).run(compiled.call.script, [single], singleArgs),
          RedisExecutor.of(client).run(CONSUME_SCRIPT, [generic], [cost, nonce, p.code, p.a, p.b, 0]),
        ]);
        const step = `cost ${cost} (step ${sequence})`;
        expect([step, mine[0], mine[1]]).toEqual([step, reference[0], reference[1]]);
        // Times come from each call's own TIME: on 2 busy cores Redis can be descheduled between the two calls.
        expect(Math.abs(mine[2] - reference[2])).toBeLessThanOrEqual(50);
        expect(Math.abs(mine[3] - reference[3])).toBeLessThanOrEqual(50);
      }
      // Both TTLs read in one script, at one instant: two round trips on a loaded machine can be far apart.
      const [singleTtl, genericTtl] = (await client.eval(
        "return { redis.call('PTTL', KEYS[1]), redis.call('PTTL', KEYS[2]) }",
        2,
        single,
        generic,
      )) as [number, number];
      expect(singleTtl).toBeGreaterThan(0);
      expect(Math.abs(singleTtl - genericTtl)).toBeLessThanOrEqual(50);
    },
  );

  it('several fixed windows: the specialised script decides like the generic one, step by step', async () => {
    const policies: RateLimitPolicy[] = [
      { algorithm: 'fixed-window', limit: 3, windowMs: 60_000 },
      { algorithm: 'fixed-window', limit: 5, windowMs: 3_600_000 },
    ];
    const compiled = compilePolicies(policies, 'policy', error);
    expect(compiled.call.script).toBe(multiFixedWindowScript);
    const args = compiled.call.unitArgs.slice(2);
    // The generic script takes a block duration (0: none) after each policy's parameters.
    const genericArgs = [0, 1].flatMap((i) => [...args.slice(3 * i, 3 * i + 3), '0']);
    const mine = [`${prefix}:rl:{mfw}:a`, `${prefix}:rl:{mfw}:b`];
    const reference = [`${prefix}:rl:{mfw}:ra`, `${prefix}:rl:{mfw}:rb`];
    // Allowed, a peek, allowed up to the first limit, denied (nothing consumed), a cost above every limit, a peek.
    for (const [step, cost] of [0, 1, 0, 2, 1, 9, 0].entries()) {
      const [got, expected] = await Promise.all([
        RedisExecutor.of(client).run(multiFixedWindowScript, mine, [cost, '', ...args]),
        RedisExecutor.of(client).run(CONSUME_SCRIPT, reference, [cost, '', ...genericArgs]),
      ]);
      expect([`step ${step} cost ${cost}`, got[0], got[1], got[4]]).toEqual([
        `step ${step} cost ${cost}`,
        expected[0],
        expected[1],
        expected[4],
      ]);
      for (const i of [2, 3, 5, 6]) expect(Math.abs(got[i] - expected[i])).toBeLessThanOrEqual(50);
    }
    expect(await client.mget(...mine)).toEqual(await client.mget(...reference));
    expect(await client.mget(...mine)).toEqual(['3', '3']);
  });

  it('fixed window: a denial leaves no counter behind, not even a new one', async () => {
    const policy: RateLimitPolicy = { algorithm: 'fixed-window', limit: 2, windowMs: 60_000 };
    const { call } = compilePolicies(policy, 'policy', error);
    const key = `${prefix}:rl:{fw-undo}:fw:2:60000`;
    expect(await RedisExecutor.of(client).run(call.script, [key], [3, 2, 60_000])).toEqual([0, 2, 0, 60_000]);
    expect(await client.exists(key)).toBe(0);
    await RedisExecutor.of(client).run(call.script, [key], [2, 2, 60_000]);
    expect((await RedisExecutor.of(client).run(call.script, [key], [1, 2, 60_000]))[0]).toBe(0);
    expect(await client.get(key)).toBe('2');
  });

  it('three policies decide all-or-nothing, each counted once', async () => {
    const limiter = app.get(RateLimiterService);
    const policies: RateLimitPolicy[] = [
      { algorithm: 'fixed-window', limit: 4, windowMs: 60_000 },
      { algorithm: 'sliding-log', limit: 3, windowMs: 60_000 },
      { algorithm: 'gcra', limit: 10, periodMs: 60_000 },
    ];
    expect(compilePolicies(policies, 'policy', error).call.script).toBe(CONSUME_SCRIPT);
    const decisions = await Promise.all(Array.from({ length: 20 }, () => limiter.consume('padded', policies)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(3);
    expect(decisions.find((d) => !d.allowed)).toMatchObject({ policyIndex: 1, limit: 3 });
    const states = await Promise.all(policies.map((policy) => limiter.consume('padded', policy, { cost: 0 })));
    expect(states.map((d) => d.remaining)).toEqual([1, 0, 7]);
  });

  it('sends decisions outside the auto-pipeline, leaving the client as configured', async () => {
    const policy: RateLimitPolicy = { algorithm: 'gcra', limit: 5, periodMs: 1000 };
    const before = { ...client.options };
    const { script } = compilePolicies(policy, 'policy', error).call;
    expect(RATE_LIMIT_SCRIPTS).toContain(script);
    const spy = jest.spyOn(client, 'sendCommand');
    try {
      await app.get(RateLimiterService).consume('direct', policy);
      // Written straight to the connection (on a cluster, auto-pipelined commands would leave through a pipeline).
      expect(spy.mock.calls.some(([command]) => command.name === 'evalsha' || command.name === 'eval')).toBe(true);
    } finally {
      spy.mockRestore();
    }
    expect(client.options).toEqual(before);
  });

  it('leaves no key without a TTL', async () => {
    expect(await keysWithoutTtl(client, `${prefix}:*`)).toEqual([]);
  });
});
