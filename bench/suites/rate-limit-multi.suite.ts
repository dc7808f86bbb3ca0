import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import type { BenchGroup, Contender } from '../lib/contender';
import { libraryContender, unavailableContender } from '../lib/contenders';
import { missingExports } from '../lib/our-library';
import { apSuffix, peerIoredis } from '../lib/peer-clients';
import { peerTargetAt } from '../lib/sweep';
import { clientKeys, expectAllowed, nodeRedisThrottlerContender, sharedOurLimiter, type ThrottlerName } from './rate-limit.suite';
import type { SuiteContext } from './suite-context';

// Three policies a real API combines: a burst limit, a per-minute and a per-hour limit.
const THROTTLERS: ThrottlerName[] = [
  { name: 'short', ttl: 1_000, limit: 1_000 },
  { name: 'medium', ttl: 60_000, limit: 10_000 },
  { name: 'long', ttl: 3_600_000, limit: 100_000 },
];
const POLICIES = THROTTLERS.map((t) => ({ algorithm: 'fixed-window', limit: t.limit, windowMs: t.ttl }));

/** ThrottlerGuard's three calls on @nest-lab/throttler-storage-redis, with a plain or an auto-pipelining client. */
function nestLabContender(ctx: SuiteContext, autoPipelining: boolean): Contender {
  const client = peerIoredis(ctx, autoPipelining);
  let storage: ThrottlerStorageRedisService;
  const throttlerKey = clientKeys(autoPipelining ? 'throttle3-ap:' : 'throttle3:');
  return libraryContender({
    id: autoPipelining ? 'throttler-ap' : 'throttler',
    label: `three named throttlers, @nest-lab/throttler-storage-redis (3 sequential increment() calls)${apSuffix(autoPipelining)}`,
    concurrency: ctx.concurrency,
    setup: async () => {
      client.open();
      storage = new ThrottlerStorageRedisService(client.get());
    },
    op: async () => {
      const tracker = throttlerKey();
      for (const t of THROTTLERS) {
        const record = await storage.increment(`${tracker}:${t.name}`, t.ttl, t.limit, 0, t.name);
        if (record.isBlocked) throw new Error('blocked during the allowed-path benchmark');
      }
    },
    teardown: async () => client.close(),
  });
}

/**
 * Three policies in one decision. Ours: one consume() with a policy array (one script, one round trip,
 * all-or-nothing). @nestjs/throttler with three named throttlers: ThrottlerGuard awaits storage.increment() once
 * per throttler, one after another; these contenders make exactly those three calls, on each Redis storage.
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
      concurrency: ctx.concurrency,
      setup: shared.setup,
      teardown: shared.teardown,
      op: async () => expectAllowed(await shared.limiter.consume(nextKey(), POLICIES)),
    });
  }
  const c = ctx.concurrency;
  return {
    id: 'rate-limit-multi',
    title: 'Rate limit: three policies',
    unit: 'one allowed decision against three fixed windows (1 s, 1 min, 1 h)',
    load: `${c} concurrent caller${c === 1 ? '' : 's'} over 100,000 client keys, closed loop`,
    probe: true,
    contenders: [
      ours,
      nestLabContender(ctx, false),
      nestLabContender(ctx, true),
      nodeRedisThrottlerContender(ctx, 'nestjs-redis-throttler', 'nr-throttle3:', THROTTLERS),
    ],
    ratios: [
      {
        label: 'consume([3]) / three named throttlers (best storage row)',
        numerator: 'ours',
        denominator: ['throttler', 'throttler-ap', 'nestjs-redis-throttler'],
        target: peerTargetAt(c, 2.5),
      },
    ],
  };
}
