import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import Redis from 'ioredis';
import type { BenchGroup, Contender } from '../lib/contender';
import { libraryContender, unavailableContender } from '../lib/contenders';
import { missingExports } from '../lib/our-library';
import { clientKeys, expectAllowed, RL_CONCURRENCY, sharedOurLimiter } from './rate-limit.suite';
import type { SuiteContext } from './suite-context';

// Three policies a real API combines: a burst limit, a per-minute and a per-hour limit.
const THROTTLERS = [
  { name: 'short', ttl: 1_000, limit: 1_000 },
  { name: 'medium', ttl: 60_000, limit: 10_000 },
  { name: 'long', ttl: 3_600_000, limit: 100_000 },
];
const POLICIES = THROTTLERS.map((t) => ({ algorithm: 'fixed-window', limit: t.limit, windowMs: t.ttl }));

/**
 * Three policies in one decision. Ours: one consume() with a policy array (one script, one round trip,
 * all-or-nothing). @nestjs/throttler with three named throttlers: ThrottlerGuard awaits storage.increment() once
 * per throttler, one after another; this contender makes exactly those three calls.
 */
export function rateLimitMultiGroup(ctx: SuiteContext): BenchGroup {
  const missing = missingExports('RateLimiterService');
  let ours: Contender;
  if (missing) {
    ours = unavailableContender('ours', 'consume() with three policies', missing);
  } else {
    const shared = sharedOurLimiter(ctx, 'bench-rl3');
    const nextKey = clientKeys('three:');
    ours = libraryContender({
      id: 'ours',
      label: 'RateLimiterService.consume(key, [3 fixed windows])',
      concurrency: RL_CONCURRENCY,
      setup: shared.setup,
      teardown: shared.teardown,
      op: async () => expectAllowed(await shared.limiter.consume(nextKey(), POLICIES)),
    });
  }
  let client: Redis;
  let storage: ThrottlerStorageRedisService;
  const throttlerKey = clientKeys('throttle3:');
  const throttler = libraryContender({
    id: 'throttler',
    label: 'three named throttlers (3 sequential increment() calls)',
    concurrency: RL_CONCURRENCY,
    setup: async () => {
      client = new Redis({ port: ctx.redis.port, host: '127.0.0.1' });
      storage = new ThrottlerStorageRedisService(client);
    },
    op: async () => {
      const tracker = throttlerKey();
      for (const t of THROTTLERS) {
        const record = await storage.increment(`${tracker}:${t.name}`, t.ttl, t.limit, 0, t.name);
        if (record.isBlocked) throw new Error('blocked during the allowed-path benchmark');
      }
    },
    teardown: async () => void client.disconnect(),
  });
  return {
    id: 'rate-limit-multi',
    title: 'Rate limit: three policies',
    unit: 'one allowed decision against three fixed windows (1 s, 1 min, 1 h)',
    load: `${RL_CONCURRENCY} concurrent callers over 100,000 client keys, closed loop`,
    probe: true,
    contenders: [ours, throttler],
    ratios: [{ label: 'consume([3]) / three named throttlers', numerator: 'ours', denominator: 'throttler', target: 2 }],
  };
}
