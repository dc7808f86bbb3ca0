import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { RateLimiterService, RedisPatternsModule } from 'nestjs-redis-patterns';
import { RedisPatternsThrottlerStorage } from 'nestjs-redis-patterns/adapters';
import type { RedisPatternsThrottlerStorageOptions } from '../../../libs/redis-patterns/src/rate-limit/adapters/throttler-storage';
import { type BackendName, connectionOf } from '../../support/backends';
import { uniquePrefix } from '../../support/redis-env';

const WINDOW_MS = 60_000;
const BLOCK_MS = 400;
const LIMIT = 2;

describe.each<[BackendName, NonNullable<RedisPatternsThrottlerStorageOptions['algorithm']>]>([
  ['standalone', 'fixed-window'],
  ['standalone', 'sliding-log'],
  ['memory', 'fixed-window'],
])('RedisPatternsThrottlerStorage blocks on %s (%s) as the throttler’s own storage does', (backend, algorithm) => {
  let app: INestApplication;
  let storage: RedisPatternsThrottlerStorage;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [RedisPatternsModule.forRoot({ connection: connectionOf(backend), keyPrefix: uniquePrefix(`tblock-${backend}`) })],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    storage = new RedisPatternsThrottlerStorage(app.get(RateLimiterService), { algorithm });
  });

  afterAll(async () => {
    await app?.close();
  });

  const hit = (key: string, blockMs = BLOCK_MS) => storage.increment(key, WINDOW_MS, LIMIT, blockMs, 'default');

  /** Hits until one is admitted (blocked hits are not counted), at most until `deadlineMs`. */
  async function untilAdmitted(key: string, deadlineMs: number) {
    const started = Date.now();
    for (;;) {
      const record = await hit(key);
      if (!record.isBlocked || Date.now() - started > deadlineMs) return { record, afterMs: Date.now() - started };
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  it('admits the client again when a block shorter than the window ends, counting afresh', async () => {
    const key = `client-${algorithm}-a`;
    expect(await hit(key)).toMatchObject({ totalHits: 1, isBlocked: false });
    expect(await hit(key)).toMatchObject({ totalHits: 2, isBlocked: false });
    const blockedAt = Date.now();
    const denied = await hit(key);
    // The wait is the block's (rounded up to a second), not the minute of the window.
    expect(denied).toMatchObject({ totalHits: LIMIT + 1, isBlocked: true, timeToBlockExpire: 1 });
    expect(await hit(key)).toMatchObject({ isBlocked: true, timeToBlockExpire: 1 });

    const { record } = await untilAdmitted(key, 5_000);
    expect(Date.now() - blockedAt).toBeGreaterThanOrEqual(BLOCK_MS - 50);
    expect(record).toMatchObject({ totalHits: 1, isBlocked: false, timeToBlockExpire: 0 });
    // A full budget again, then a new block.
    expect(await hit(key)).toMatchObject({ totalHits: 2, isBlocked: false });
    expect(await hit(key)).toMatchObject({ isBlocked: true, timeToBlockExpire: 1 });
  });

  it('keeps blocking for the whole block while the client keeps calling', async () => {
    const key = `client-${algorithm}-b`;
    await hit(key);
    await hit(key);
    const blockedAt = Date.now();
    expect((await hit(key)).isBlocked).toBe(true);
    const { afterMs } = await untilAdmitted(key, 5_000);
    expect(afterMs).toBeLessThan(5_000);
    expect(Date.now() - blockedAt).toBeGreaterThanOrEqual(BLOCK_MS - 50);
  });

  it('without a block duration, a denied client waits for the window', async () => {
    const key = `client-${algorithm}-c`;
    await hit(key, 0);
    await hit(key, 0);
    const denied = await hit(key, 0);
    expect(denied.isBlocked).toBe(true);
    expect(denied.timeToBlockExpire).toBeGreaterThan(50);
    expect(denied.timeToBlockExpire).toBeLessThanOrEqual(60);
  });
});

describe('RedisPatternsThrottlerStorage options', () => {
  it("rejects the pre-1.0 algorithm name 'sliding-window', naming its new name 'sliding-log'", () => {
    expect(() => new RedisPatternsThrottlerStorage({} as RateLimiterService, { algorithm: 'sliding-window' as 'sliding-log' })).toThrow(
      `Invalid argument "options.algorithm": expected 'sliding-log' ('sliding-window' was renamed 'sliding-log' in 1.0; ` +
        `'sliding-window-counter' keeps its name), received "sliding-window"`,
    );
  });
});
