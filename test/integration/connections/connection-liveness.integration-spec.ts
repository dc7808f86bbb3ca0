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
import { RedisExecutor } from '../../../libs/redis-patterns/src/core/scripts/redis-executor';
import { privateServer, type RedisServerProcess, uniquePrefix, waitFor } from '../../support/redis-env';

const DEADLINE_MS = 400;

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
    expect(executor.liveness?.isDown).toBe(false);

    server.freeze();
    // The first call pays the deadline: nothing told the connection the server stopped answering.
    const first = await timed(() => locks.acquire('frozen-1', { ttlMs: 5_000 }));
    expect(outageOf(first.outcome)?.mayHaveRun).toBe(true);
    expect(executor.liveness?.isDown).toBe(true);

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
      () => executor.liveness?.isDown === false,
      5_000,
      () => 'the connection to be marked up again',
    );
    const lock = await locks.acquire('thawed', { ttlMs: 5_000 });
    await lock.release();
    expect(await cache.set('thawed', 1, { ttl: 60 })).toBe(true);
  });
});
