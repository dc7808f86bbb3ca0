import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { INestApplicationContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Redis } from 'ioredis';
import {
  CacheService,
  IdempotencyService,
  LockService,
  RateLimiterService,
  RedisConnections,
  RedisPatternsModule,
  SemaphoreService,
  WriteBehindService,
} from 'nestjs-redis-patterns';
import { CappedList, Leaderboard, SessionStore, UniqueCounter } from 'nestjs-redis-patterns/structures';
import { PubSubService, StreamsService } from 'nestjs-redis-patterns/messaging';
import { RedisPatternsHealthIndicator } from 'nestjs-redis-patterns/health';
import { rawClient, uniquePrefix, waitFor } from '../../support/redis-env';

/**
 * docs/security.md documents the ACL each pattern needs as fenced `acl <pattern>` blocks. Each pattern runs here as a
 * user granted exactly `core` + its own block, with the page's key prefix replaced by a unique one: a pattern that
 * needs a command, key or channel its block does not grant fails with a RedisRefusedError (and health goes down).
 */
const page = readFileSync(join(__dirname, '../../../docs/security.md'), 'utf8');
const blocks = new Map([...page.matchAll(/```acl (\w+)\n([^`]+)```/g)].map((m) => [m[1], m[2].trim()]));

type Exercise = (app: INestApplicationContext, tag: string) => Promise<void>;

const policy = (algorithm: string) =>
  algorithm === 'token-bucket'
    ? { algorithm, capacity: 5, refillPerSecond: 1 }
    : algorithm === 'gcra'
      ? { algorithm, limit: 5, periodMs: 60_000 }
      : { algorithm, limit: 5, windowMs: 60_000 };

const exercises: Record<string, Exercise> = {
  cache: async (app, tag) => {
    const cache = app.get(CacheService);
    expect(await cache.set(`${tag}:a`, { n: 1 }, { ttl: 60, tags: ['t'] })).toBe(true);
    expect(await cache.get(`${tag}:a`)).toEqual({ n: 1 });
    expect(await cache.getMany([`${tag}:a`, `${tag}:b`])).toEqual([{ n: 1 }, undefined]);
    expect(await cache.wrap(`${tag}:w`, () => 7, { ttl: 60, tags: ['t'] })).toBe(7);
    expect(await cache.invalidateTags('t')).toBeGreaterThanOrEqual(0);
    await cache.del(`${tag}:a`);
    await cache.clear(tag);
  },
  rateLimit: async (app, tag) => {
    const limiter = app.get(RateLimiterService);
    for (const algorithm of ['fixed-window', 'sliding-log', 'sliding-window-counter', 'token-bucket', 'gcra']) {
      const decision = await limiter.consume(`${tag}:${algorithm}`, policy(algorithm) as never);
      expect(decision.allowed).toBe(true);
      await limiter.reset(`${tag}:${algorithm}`, policy(algorithm) as never);
    }
    const both = await limiter.consume(`${tag}:multi`, [policy('fixed-window'), policy('token-bucket')] as never);
    expect(both.allowed).toBe(true);
  },
  lock: async (app, tag) => {
    const locks = app.get(LockService);
    const lock = await locks.acquire(`${tag}:r`, { ttlMs: 5000, waitMs: 1000 });
    expect(await locks.tryAcquire(`${tag}:r`, { ttlMs: 5000 })).toBeNull();
    await lock.extend(5000);
    await lock.release();
    expect(await locks.using(`${tag}:u`, async () => 'done', { ttlMs: 5000 })).toBe('done');
    const rw = locks.readWrite(`${tag}:rw`);
    expect(await rw.read(async () => 'read', { ttlMs: 5000 })).toBe('read');
    expect(await rw.write(async () => 'written', { ttlMs: 5000, waitMs: 1000 })).toBe('written');
    const semaphores = app.get(SemaphoreService);
    const permit = await semaphores.acquire(`${tag}:s`, 2, { ttlMs: 5000 });
    await permit.release();
  },
  idempotency: async (app, tag) => {
    const idempotency = app.get(IdempotencyService);
    let runs = 0;
    const work = async () => ++runs;
    expect(await idempotency.execute(`${tag}:k`, work, { ttlMs: 60_000 })).toBe(1);
    expect(await idempotency.execute(`${tag}:k`, work, { ttlMs: 60_000 })).toBe(1);
  },
  pubsub: async (app, tag) => {
    const pubsub = app.get(PubSubService);
    const received: unknown[] = [];
    const subscription = await pubsub.subscribe(`${tag}:room`, (message) => void received.push(message));
    await pubsub.publish(`${tag}:room`, { hello: 1 });
    await until(() => received.length === 1);
    await subscription.unsubscribe();
  },
  streams: async (app, tag) => {
    const streams = app.get(StreamsService);
    const handled: unknown[] = [];
    const consumer = streams.consume({
      stream: `${tag}:s`,
      group: 'g',
      blockMs: 100,
      handler: async (message) => void handled.push(message),
    });
    await streams.add(`${tag}:s`, { n: '1' });
    await until(() => handled.length === 1);
    await consumer.stop();
  },
  writeBehind: async (app, tag) => {
    const writeBehind = app.get(WriteBehindService);
    const saved: string[] = [];
    let failing = false;
    writeBehind.registerWriter('acl', (changes) => {
      if (failing) throw new Error('database unavailable');
      saved.push(...changes.map((change) => change.key));
    });
    await writeBehind.write('acl', `${tag}:w`, { n: 1 });
    expect(await writeBehind.get(`${tag}:w`)).toEqual({ n: 1 });
    await until(() => saved.includes(`${tag}:w`));
    failing = true;
    await writeBehind.write('acl', `${tag}:dead`, { n: 2 });
    await until(() => writeBehind.stats('acl')?.deadLettered === 1);
    expect((await writeBehind.deadLetters('acl')).map((letter) => letter.key)).toEqual([`${tag}:dead`]);
    // The dead letter's announcement leaves its partition on the next round.
    await waitFor(async () => (await writeBehind.pending('acl')) === 0, 5000);
  },
  structures: async (app, tag) => {
    const sessions = app.get(SessionStore);
    const id = await sessions.create({ user: tag });
    expect(await sessions.get(id)).toEqual({ user: tag });
    await sessions.update(id, { seen: 1 });
    await sessions.touch(id);
    await sessions.destroy(id);
    const board = app.get(Leaderboard);
    await board.incr(`${tag}:b`, 'alice', 3);
    await board.incr(`${tag}:b`, 'bob', 1);
    expect((await board.top(`${tag}:b`, 2)).map((e) => e.member)).toEqual(['alice', 'bob']);
    expect(await board.rank(`${tag}:b`, 'bob')).toBe(2);
    await board.around(`${tag}:b`, 'bob', 1);
    const counter = app.get(UniqueCounter);
    await counter.add(`${tag}:u1`, 'x', 'y');
    await counter.add(`${tag}:u2`, 'y', 'z');
    expect(await counter.count(`${tag}:u1`, `${tag}:u2`)).toBe(3);
    await counter.merge(`${tag}:u3`, `${tag}:u1`, `${tag}:u2`);
    const feed = app.get(CappedList);
    await feed.push(`${tag}:f`, { n: 1 });
    expect(await feed.range(`${tag}:f`)).toEqual([{ n: 1 }]);
  },
};

async function until(done: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('docs/security.md: each pattern runs as a user with exactly its documented ACL (standalone)', () => {
  let admin: Redis;
  const users: string[] = [];
  const apps: INestApplicationContext[] = [];

  beforeAll(() => {
    admin = rawClient('standalone') as Redis;
  });

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    for (const user of users) await admin.call('ACL', 'DELUSER', user);
    admin.disconnect();
  });

  it('documents a block for every exercised pattern, and core', () => {
    expect([...blocks.keys()].sort()).toEqual(['core', ...Object.keys(exercises)].sort());
  });

  it.each(Object.keys(exercises))(
    '%s',
    async (pattern) => {
      const prefix = uniquePrefix(`acl-${pattern}`);
      const user = `rp-${prefix}`;
      users.push(user);
      const rules = `${blocks.get('core')} ${blocks.get(pattern)}`.replace(/\bapp:/g, `${prefix}:`).split(/\s+/);
      await admin.call('ACL', 'SETUSER', user, 'reset', 'on', '>pw', 'resetchannels', ...rules);
      const { port } = admin.options;
      const moduleRef = await Test.createTestingModule({
        imports: [
          RedisPatternsModule.forRoot({
            connection: `redis://${user}:pw@127.0.0.1:${port}`,
            keyPrefix: prefix,
            writeBehind: { delayMs: 20, retryDelayMs: 20, maxAttempts: 1 },
          }),
        ],
      }).compile();
      const app = await moduleRef.init();
      apps.push(app);
      await exercises[pattern](app, 'k');
      const health = await app.get(RedisPatternsHealthIndicator).check('redis');
      expect(health.redis.connections.default.error).toBeUndefined();
      expect(health.redis.status).toBe('up');
      expect(app.get(RedisConnections).names()).toContain('default');
    },
    20_000,
  );
});
