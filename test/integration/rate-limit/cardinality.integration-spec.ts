import type { INestApplication } from '@nestjs/common';
import type { Cluster, Redis } from 'ioredis';
import { type RateLimitPolicy, RateLimiterService } from 'nestjs-redis-patterns';
import { connectionFor, keysWithoutTtl, rawClient, scanKeys, uniquePrefix } from '../../support/redis-env';
import { startApp } from './rate-limit-app';

describe('rate-limit key cardinality (standalone)', () => {
  const prefix = uniquePrefix('rl-card');
  let app: INestApplication;
  let admin: Redis | Cluster;

  beforeAll(async () => {
    admin = rawClient('standalone');
    app = await startApp({ connection: connectionFor('standalone'), keyPrefix: prefix, commandTimeoutMs: 5000 });
  });

  afterAll(async () => {
    await app.close();
    admin.disconnect();
  });

  it('200k distinct identities leave no key without a TTL, each TTL within its window', async () => {
    const limiter = app.get(RateLimiterService);
    const policies: RateLimitPolicy[] = [
      { algorithm: 'fixed-window', limit: 10, windowMs: 600_000 },
      { algorithm: 'token-bucket', capacity: 5, refillPerSecond: 1 },
    ];
    const total = 200_000;
    for (let start = 0; start < total; start += 5000) {
      await Promise.all(Array.from({ length: 5000 }, (_, i) => limiter.consume(`203.0.113.${start + i}`, policies)));
    }
    expect(await keysWithoutTtl(admin, `${prefix}:*`)).toEqual([]);
    const keys = await scanKeys(admin, `${prefix}:*`);
    // Fixed-window keys live 10 min (longer than the run); token-bucket keys only until the bucket is full again (1 s), so some are gone.
    expect(keys.filter((key) => key.includes(':fw:'))).toHaveLength(total);
    expect(keys.filter((key) => key.includes(':tb2:')).length).toBeLessThanOrEqual(total);
    const sample = keys.slice(0, 2000);
    const ttls = await Promise.all(sample.map((key) => admin.pttl(key)));
    sample.forEach((key, i) => expect(ttls[i]).toBeLessThanOrEqual(key.includes(':tb2:') ? 1000 : 600_000));
  }, 120_000);

  it('bounds the length of hostile identities and escapes their structure', async () => {
    const limiter = app.get(RateLimiterService);
    const policy: RateLimitPolicy = { algorithm: 'gcra', limit: 5, periodMs: 10_000 };
    const hostile = ['x'.repeat(1024), 'a}{b:*?[c] \n', 'x'.repeat(1023) + 'y'];
    for (const identity of hostile) expect((await limiter.consume(identity, policy)).allowed).toBe(true);
    const keys = await scanKeys(admin, `${prefix}:rl:*:gcra2:*`);
    expect(keys).toHaveLength(3);
    for (const key of keys) {
      expect(key.length).toBeLessThan(300);
      // One hash tag per key: the identity cannot open or close another.
      expect(key.split('{')).toHaveLength(2);
      expect(key.split('}')).toHaveLength(2);
    }
  });
});
