import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import {
  CacheService,
  LockService,
  RateLimiterService,
  RedisConnections,
  RedisPatternsModule,
  RedisUnavailableError,
} from 'nestjs-redis-patterns';
import type { Cluster } from 'ioredis';
import { keySlot } from '../../../libs/redis-patterns/src/core/keys/key-slot';
import { RedisExecutor } from '../../../libs/redis-patterns/src/core/scripts/redis-executor';
import { defineScript } from '../../../libs/redis-patterns/src/core/scripts/redis-script';
import { type RedisCluster, startRedisCluster } from '../../../libs/redis-patterns/src/testing/redis-cluster';
import { privateServer, type RedisServerProcess, uniquePrefix, waitFor } from '../../support/redis-env';

const DEADLINE_MS = 400;
/** A script of one key that writes nothing: what every pattern's script call goes through. */
const PROBE_SCRIPT = defineScript<number>('liveness_probe', `return redis.call('EXISTS', KEYS[1])`, { keys: 1, args: 0 });

/** The outage behind a failure: the error itself, or its cause (a lock reports its own error, caused by the outage). */
function outageOf(outcome: unknown): RedisUnavailableError | undefined {
  if (outcome instanceof RedisUnavailableError) return outcome;
  const cause = (outcome as Error | undefined)?.cause;
  return cause instanceof RedisUnavailableError ? cause : undefined;
}

/** What a call costs and how it ends: the error, or 'ok'. */
async function timed(call: () => Promise<unknown>): Promise<{ ms: number; outcome: unknown }> {
  const started = performance.now();
  const outcome = await call().then(
    () => 'ok',
    (error: unknown) => error,
  );
  return { ms: performance.now() - started, outcome };
}

describe('connection liveness: one view per connection that every pattern reads', () => {
  let server: RedisServerProcess;
  let nest: INestApplication;

  beforeAll(async () => {
    server = await privateServer();
    const moduleRef = await Test.createTestingModule({
      imports: [
        RedisPatternsModule.forRoot({ connection: server.url, keyPrefix: uniquePrefix('liveness'), commandTimeoutMs: DEADLINE_MS }),
      ],
    }).compile();
    nest = moduleRef.createNestApplication({ logger: false });
    await nest.init();
  });

  afterAll(async () => {
    server.resume();
    await nest?.close();
    await server?.stop();
  });

  it('after one unanswered command, every pattern answers at once without sending (locks, the cache, decisions); back within a probe of the server', async () => {
    const locks = nest.get(LockService);
    const cache = nest.get(CacheService);
    const limiter = nest.get(RateLimiterService);
    const executor = RedisExecutor.of(nest.get(RedisConnections).get());
    await locks.acquire('warm', { ttlMs: 5_000 }).then((lock) => lock.release());
    expect(executor.outageFor()).toBeUndefined();

    server.freeze();
    // The first call pays the deadline: nothing told the connection the server stopped answering.
    const first = await timed(() => locks.acquire('frozen-1', { ttlMs: 5_000 }));
    expect(outageOf(first.outcome)?.mayHaveRun).toBe(true);
    expect(executor.outageFor()).toBeInstanceOf(RedisUnavailableError);

    // Later calls fail at once, without being sent (so nothing waits in the frozen socket to run when it thaws).
    const later = await Promise.all([
      timed(() => locks.acquire('frozen-2', { ttlMs: 5_000 })),
      timed(() => executor.call('get', 'anything')),
    ]);
    for (const { ms, outcome } of later) {
      expect(outageOf(outcome)?.mayHaveRun).toBe(false);
      expect(ms).toBeLessThan(DEADLINE_MS / 2);
    }
    // The cache, which fails open, answers at once too (the write is skipped, never queued).
    const write = await timed(() => cache.set('frozen', 1, { ttl: 60 }));
    expect(write.ms).toBeLessThan(DEADLINE_MS / 2);
    // The rate limiter applies its outage policy (fail open by default) at once.
    const failedOpen = limiter.outageStats().failedOpen;
    const decision = await timed(() => limiter.consume('frozen', { algorithm: 'fixed-window', limit: 5, windowMs: 60_000 }));
    expect([decision.outcome, limiter.outageStats().failedOpen]).toEqual(['ok', failedOpen + 1]);
    expect(decision.ms).toBeLessThan(DEADLINE_MS / 2);

    server.resume();
    // The probe (a PING every 250 ms while down, on the client itself) notices the server is back.
    await waitFor(
      () => executor.outageFor() === undefined,
      5_000,
      () => 'the connection to be marked up again',
    );
    const lock = await locks.acquire('thawed', { ttlMs: 5_000 });
    await lock.release();
    expect(await cache.set('thawed', 1, { ttl: 60 })).toBe(true);
  });
});

describe('connection liveness on a cluster: one view per master', () => {
  let cluster: RedisCluster;
  let nest: INestApplication;

  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1, startTimeoutMs: 30_000 });
    const moduleRef = await Test.createTestingModule({
      imports: [
        RedisPatternsModule.forRoot({
          connection: { cluster: { nodes: cluster.ports.map((port) => ({ host: '127.0.0.1', port })) } },
          keyPrefix: uniquePrefix('cluster-liveness'),
          commandTimeoutMs: DEADLINE_MS,
        }),
      ],
    }).compile();
    nest = moduleRef.createNestApplication({ logger: false });
    await nest.init();
  }, 60_000);

  afterAll(async () => {
    for (const server of cluster?.servers ?? []) server.resume();
    await nest?.close();
    await cluster?.stop();
  });

  it("after one unanswered command for a frozen master, its keys fail at once while the other masters' keys still go to Redis; back within a probe", async () => {
    const client = nest.get(RedisConnections).get() as Cluster;
    const executor = RedisExecutor.of(client);
    const limiter = nest.get(RateLimiterService);
    await executor.call('ping');
    const frozen = cluster.masters[0];
    const frozenNode = `127.0.0.1:${frozen.port}`;
    // Keys the slot table puts on the frozen master, and keys it puts on the others.
    const names = Array.from({ length: 200 }, (_, i) => `liveness-key-${i}`);
    const onFrozen = names.filter((key) => client.slots[keySlot(key)]?.[0] === frozenNode);
    const elsewhere = names.filter((key) => client.slots[keySlot(key)]?.[0] !== frozenNode);
    expect(onFrozen.length).toBeGreaterThan(10);
    expect(elsewhere.length).toBeGreaterThan(10);

    // Held well under the cluster's node timeout (2 s): the other masters never mark it failed, so their slots stay
    // served and what is measured is the client's view alone.
    frozen.freeze();
    try {
      // The first call for the frozen master pays the deadline: nothing told the client it stopped answering.
      const first = await timed(() => executor.read(onFrozen[0]));
      expect(outageOf(first.outcome)?.mayHaveRun).toBe(true);
      expect(executor.outageFor(onFrozen[1])).toBeInstanceOf(RedisUnavailableError);
      expect(executor.outageFor(elsewhere[0])).toBeUndefined();

      // Later calls for its keys fail at once, unsent; the other masters' keys are read from Redis.
      const later = await Promise.all([
        ...onFrozen.slice(1, 6).map((key) => timed(() => executor.read(key))),
        ...elsewhere.slice(0, 5).map((key) => timed(() => executor.read(key))),
      ]);
      for (const { ms, outcome } of later.slice(0, 5)) {
        expect(outageOf(outcome)?.mayHaveRun).toBe(false);
        expect(ms).toBeLessThan(DEADLINE_MS / 2);
      }
      expect(later.slice(5).map(({ outcome }) => outcome)).toEqual(new Array(5).fill('ok'));

      // A script call for a key of the frozen master fails at once, unsent, as reads do.
      const decided = await timed(() => executor.run(PROBE_SCRIPT, [onFrozen[6]], []));
      expect(outageOf(decided.outcome)?.mayHaveRun).toBe(false);
      expect(decided.ms).toBeLessThan(DEADLINE_MS / 2);
      // Rate-limit decisions: the identities on the frozen master apply the outage policy (fail open) at once.
      const failedOpen = limiter.outageStats().failedOpen;
      const decisions = await Promise.all(
        Array.from({ length: 40 }, (_, i) => limiter.consume(`client-${i}`, { algorithm: 'fixed-window', limit: 5, windowMs: 60_000 })),
      );
      expect(decisions.every((d) => d.allowed)).toBe(true);
      // Some identities live on the frozen master (decided without Redis), the others on the masters that answer.
      const withoutRedis = limiter.outageStats().failedOpen - failedOpen;
      expect(withoutRedis).toBeGreaterThan(0);
      expect(withoutRedis).toBeLessThan(40);
    } finally {
      frozen.resume();
    }
    // The probe (a PING of that master every 250 ms while it is down) notices it is back.
    await waitFor(
      () => executor.outageFor(onFrozen[0]) === undefined,
      5_000,
      () => 'the frozen master to be marked up again',
    );
    await expect(executor.read(onFrozen[0])).resolves.toBeNull();
  }, 30_000);

  it("a killed master's keys go to its promoted replica without a restart: the probe refreshes the slot table", async () => {
    const client = nest.get(RedisConnections).get() as Cluster;
    const executor = RedisExecutor.of(client);
    const key = 'liveness-failover-key';
    const owner = client.slots[keySlot(key)]?.[0];
    const master = cluster.servers.find((server) => `127.0.0.1:${server.port}` === owner);
    expect(master).toBeDefined();
    await executor.run(PROBE_SCRIPT, [key], []);

    await master!.kill();
    // The cluster promotes the replica once the node timeout (2 s) passes; until then the key's calls fail (at once
    // after the first). Then they go to the new master: nothing stays refused for a master that serves no slot.
    await waitFor(
      () =>
        executor.run(PROBE_SCRIPT, [key], []).then(
          () => true,
          () => false,
        ),
      20_000,
      () => `the key's calls to reach the promoted replica (slot owner ${client.slots[keySlot(key)]?.[0]})`,
    );
    expect(client.slots[keySlot(key)]?.[0]).not.toBe(owner);
    expect(executor.outageFor(key)).toBeUndefined();
  }, 40_000);
});
