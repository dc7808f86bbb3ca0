import autocannon from 'autocannon';
import type { BenchArgs } from '../lib/args';
import type { BenchGroup, Contender, RunResult } from '../lib/contender';
import { unavailableContender } from '../lib/contenders';
import { missingExports } from '../lib/our-library';
import type { RunPlan } from '../lib/runner';
import { AppProcess } from '../http/app-process';
import { NEAR_CACHED_PATH, type NearStats, awaitNearCacheFilled, readNearStats } from '../http/near-cache-stats';
import type { SuiteContext } from './suite-context';

/** Apps shared by the contenders that hit them: started on first setup, stopped on last teardown. */
class Apps {
  private readonly apps = new Map<string, { app: AppProcess; users: number }>();
  constructor(private readonly redisUrl: string) {}

  async acquire(variant: string): Promise<AppProcess> {
    let entry = this.apps.get(variant);
    if (!entry) {
      entry = { app: new AppProcess(variant, this.redisUrl), users: 0 };
      this.apps.set(variant, entry);
      await entry.app.start();
    }
    entry.users++;
    return entry.app;
  }

  async release(variant: string): Promise<void> {
    const entry = this.apps.get(variant);
    if (entry && --entry.users === 0) {
      this.apps.delete(variant);
      await entry.app.stop();
    }
  }
}

interface HttpContenderSpec {
  id: string;
  label: string;
  variant: string;
  path: string;
  unique?: boolean;
  missing?: string;
  /** Every request must be answered from the app's near cache (L1): the ones that were not count as errors. */
  fromNearCache?: boolean;
}

function httpContender(ctx: SuiteContext, apps: Apps, spec: HttpContenderSpec): Contender {
  if (spec.missing) return unavailableContender(spec.id, spec.label, spec.missing);
  let app: AppProcess;
  let n = 0;
  return {
    id: spec.id,
    label: spec.label,
    setup: async () => {
      app = await apps.acquire(spec.variant);
      if (spec.fromNearCache) await awaitNearCacheFilled(app.port);
    },
    run: async (durationMs): Promise<RunResult> => {
      // Read outside the measured stretch: these two requests are neither timed nor in the app's CPU figure.
      const nearBefore = spec.fromNearCache ? await readNearStats(app.port) : undefined;
      const cpuBefore = app.cpuUs();
      const result = await autocannon({
        url: `http://127.0.0.1:${app.port}`,
        connections: ctx.http.connections,
        duration: durationMs / 1000,
        // Uncontended locks: a different resource per request (cycling over 10,000).
        requests: [
          spec.unique
            ? { method: 'GET', setupRequest: (req: object) => ({ ...req, path: `${spec.path}?id=${n++ % 10_000}` }) }
            : { method: 'GET', path: spec.path },
        ],
      });
      const clientCpuUs = app.cpuUs() - cpuBefore;
      const notFromL1 = nearBefore ? requestsNotFromL1(spec.label, result.requests.total, nearBefore, await readNearStats(app.port)) : 0;
      return {
        ops: result.requests.total,
        elapsedMs: result.duration * 1000,
        p50Ms: result.latency.p50,
        p99Ms: result.latency.p99,
        clientCpuUs,
        errors: result.errors + result.timeouts + result.non2xx + notFromL1,
      };
    },
    teardown: () => apps.release(spec.variant),
  };
}

/**
 * Requests of a run that L1 did not answer: the run's responses minus the L1 hits the app counted meanwhile (a hit
 * for a request still in flight when autocannon stopped counts too, hence never below 0). Every one of them went
 * to Redis, so the row would not measure what its label says.
 */
function requestsNotFromL1(label: string, responses: number, before: NearStats, after: NearStats): number {
  const missed = Math.max(0, responses - (after.hits - before.hits));
  if (missed > 0) {
    process.stderr.write(
      `  ${label}: ${missed} of ${responses} requests not answered from L1 (near cache live: ${after.live}, L1 misses: ${after.misses - before.misses})\n`,
    );
  }
  return missed;
}

/**
 * HTTP level (Express): each app in its own process, autocannon in the benchmark process. The bare endpoint is
 * the limit; the others return the same document through a cache hit (from Redis, or from the near cache's L1 with
 * no Redis command at all), an allowed rate-limit decision or an uncontended lock.
 */
export function httpGroup(ctx: SuiteContext): BenchGroup {
  const apps = new Apps(ctx.redis.url);
  return {
    id: 'http',
    title: 'HTTP (Express, autocannon)',
    unit: 'one GET request returning a ~0.5 KB JSON document',
    load: `autocannon, ${ctx.http.connections} connections, ${ctx.http.durationS} s per contender per round; app CPU per request in the client CPU column`,
    contenders: [
      httpContender(ctx, apps, { id: 'bare', label: 'bare Nest endpoint', variant: 'bare', path: '/bare' }),
      httpContender(ctx, apps, {
        id: 'cacheable',
        label: '@Cacheable (hit)',
        variant: 'ours',
        path: '/cached',
        missing: missingExports('Cacheable'),
      }),
      httpContender(ctx, apps, {
        id: 'cacheable-near',
        label: '@Cacheable with near cache (L1 hit)',
        variant: 'ours',
        path: NEAR_CACHED_PATH,
        fromNearCache: true,
        missing: missingExports('Cacheable', 'CacheService'),
      }),
      httpContender(ctx, apps, {
        id: 'cache-interceptor',
        label: '@nestjs/cache-manager CacheInterceptor + @keyv/redis (hit)',
        variant: 'cache-manager',
        path: '/cached',
      }),
      httpContender(ctx, apps, {
        id: 'rate-limit',
        label: '@RateLimit (allowed)',
        variant: 'ours',
        path: '/limited',
        missing: missingExports('RateLimit'),
      }),
      httpContender(ctx, apps, {
        id: 'throttler',
        label: 'ThrottlerGuard + throttler-storage-redis (allowed)',
        variant: 'throttler',
        path: '/limited',
      }),
      httpContender(ctx, apps, {
        id: 'with-lock',
        label: '@WithLock (uncontended)',
        variant: 'ours',
        path: '/locked',
        unique: true,
        missing: missingExports('WithLock'),
      }),
    ],
    ratios: [
      { label: '@Cacheable / bare', numerator: 'cacheable', denominator: 'bare', target: 0.9 },
      { label: '@Cacheable near cache / bare', numerator: 'cacheable-near', denominator: 'bare', target: 0.97 },
      { label: 'near cache / @Cacheable (Redis hit)', numerator: 'cacheable-near', denominator: 'cacheable' },
      { label: '@Cacheable / CacheInterceptor', numerator: 'cacheable', denominator: 'cache-interceptor' },
      { label: 'CacheInterceptor / bare', numerator: 'cache-interceptor', denominator: 'bare' },
      { label: '@RateLimit / bare', numerator: 'rate-limit', denominator: 'bare', target: 0.88 },
      { label: '@RateLimit / ThrottlerGuard', numerator: 'rate-limit', denominator: 'throttler' },
      { label: 'ThrottlerGuard / bare', numerator: 'throttler', denominator: 'bare' },
      { label: '@WithLock / bare', numerator: 'with-lock', denominator: 'bare' },
    ],
  };
}

/** HTTP rounds are longer than library rounds (autocannon needs a few seconds to reach a steady state). */
export function httpPlan(args: BenchArgs): RunPlan {
  return { rounds: args.http.rounds, durationMs: args.http.durationS * 1000, warmupMs: args.quick ? 500 : 1500, probeOps: 0 };
}
