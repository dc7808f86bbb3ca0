import type { BenchArgs } from '../lib/args';
import type { BenchGroup, Contender, DifferenceSpec, RatioSpec } from '../lib/contender';
import { missingExports } from '../lib/our-library';
import type { RunPlan } from '../lib/runner';
import type { HttpAdapterName } from '../http/http-adapter';
import { fixedRateWindowS, type HttpRouteSpec, httpContender, type Pace } from '../http/http-contender';
import { NEAR_CACHED_PATH } from '../http/near-cache-stats';
import { HTTP_ROUTES } from '../http/routes';
import { SharedApp } from '../http/shared-app';
import type { SuiteContext } from './suite-context';

/**
 * Rounds and durations of the four HTTP groups: one plan for all of them (the suite registry gives every HTTP group
 * httpPlan); the fixed-rate groups measure its whole seconds (fixedRateWindowS). Full: 6 rounds of 2 s per route,
 * each route warmed up for 1 s at saturation first: the four groups of 9 routes take about 8 minutes. Rounds rather
 * than longer runs, since the spread between rounds on this shared machine is what moves a median. Quick: one round
 * of 1 s (one second's burst at the fixed rate), enough for every route to answer so a broken one shows errors; not
 * a measurement.
 */
/** Warm-up per route: full runs 1 s, quick 0.25 s (rounds and their length come from `--rounds`/`--http-seconds`). */
const WARMUP_MS = { full: 1_000, quick: 250 } as const;

/**
 * The request rate of the app-CPU groups, the same for every route of a group. It must stay below what the slowest
 * route sustains: each second's quota goes out as one burst (see sendLoad), and the last second's burst has 0.8 s
 * to complete, so a route must answer at least 1,250 requests/s while bursting, or the shortfall counts as errors.
 * In quick runs on this 2-core machine with other work on it (load average 2–5), the slowest routes at saturation
 * were ThrottlerGuard (1 and 3 throttlers) and @WithLock: 1,950–3,000 requests/s on Express (the low end with a
 * 0.25 s warm-up), 3,900–5,200 on Fastify. 1,000/s leaves the slowest at least 1.5 times what a burst needs.
 * 2 s × 1,000 = 2,000 requests a round are plenty for the app's CPU clock (its threads' run time, in nanoseconds);
 * the round-to-round spread comes from the shared machine, which more rounds, not more requests, narrow.
 */
export const FIXED_RATE = 1_000;

const cacheable = missingExports('Cacheable');
const rateLimit = missingExports('RateLimit');

/** The routes of every HTTP group, in report order, all served by one app process (bench/http/app.module.ts). */
const ROUTES: HttpRouteSpec[] = [
  { id: 'bare', label: 'bare', path: HTTP_ROUTES.bare },
  { id: 'bare-intercepted', label: 'bare + a pass-through interceptor', path: HTTP_ROUTES.bareIntercepted },
  { id: 'cacheable', label: '@Cacheable (Redis hit)', path: HTTP_ROUTES.cacheable, missing: cacheable },
  {
    id: 'cacheable-near',
    label: '@Cacheable (near cache)',
    path: NEAR_CACHED_PATH,
    fromNearCache: true,
    missing: missingExports('Cacheable', 'CacheService'),
  },
  { id: 'cache-interceptor', label: 'CacheInterceptor + @keyv/redis', path: HTTP_ROUTES.cacheInterceptor },
  { id: 'rate-limit-1', label: '@RateLimit (1 policy)', path: HTTP_ROUTES.rateLimit, missing: rateLimit },
  { id: 'rate-limit-3', label: '@RateLimit (3 policies)', path: HTTP_ROUTES.rateLimit3, missing: rateLimit },
  { id: 'throttler-1', label: 'ThrottlerGuard + Redis storage (1)', path: HTTP_ROUTES.throttler },
  { id: 'throttler-3', label: 'ThrottlerGuard + Redis storage (3)', path: HTTP_ROUTES.throttler3 },
  { id: 'with-lock', label: '@WithLock', path: HTTP_ROUTES.locked, resourcePerRequest: true, missing: missingExports('WithLock') },
];

const UNIT = 'one GET request returning a ~0.5 KB JSON document';

/** The group's contenders: every route, on one app process started for the group. */
function contenders(ctx: SuiteContext, adapter: HttpAdapterName, pace: Pace): Contender[] {
  const app = new SharedApp('all', adapter, ctx.redis.url);
  return ROUTES.map((route) => httpContender(app, route, pace, ctx.http.connections));
}

function timing(ctx: Pick<SuiteContext, 'quick' | 'http'>) {
  return { rounds: ctx.http.rounds, durationMs: ctx.http.durationS * 1000, warmupMs: ctx.quick ? WARMUP_MS.quick : WARMUP_MS.full };
}

/**
 * Throughput ratios. The targets (issue 11) were set on the Express endpoint, so they are checked there only; the
 * Fastify group reports the same ratios without one.
 */
function throughputRatios(withTargets: boolean): RatioSpec[] {
  const target = (value: number) => (withTargets ? { target: value } : {});
  return [
    { label: '@Cacheable (Redis hit) / bare', numerator: 'cacheable', denominator: 'bare', ...target(0.9) },
    { label: '@Cacheable (near cache) / bare', numerator: 'cacheable-near', denominator: 'bare', ...target(0.97) },
    { label: '@Cacheable (near cache) / @Cacheable (Redis hit)', numerator: 'cacheable-near', denominator: 'cacheable' },
    { label: '@Cacheable (Redis hit) / CacheInterceptor', numerator: 'cacheable', denominator: 'cache-interceptor' },
    { label: 'CacheInterceptor / bare', numerator: 'cache-interceptor', denominator: 'bare' },
    { label: '@RateLimit (1 policy) / bare', numerator: 'rate-limit-1', denominator: 'bare', ...target(0.88) },
    { label: '@RateLimit (1 policy) / ThrottlerGuard (1)', numerator: 'rate-limit-1', denominator: 'throttler-1' },
    { label: 'ThrottlerGuard (1) / bare', numerator: 'throttler-1', denominator: 'bare' },
    { label: '@RateLimit (3 policies) / bare', numerator: 'rate-limit-3', denominator: 'bare' },
    { label: '@RateLimit (3 policies) / ThrottlerGuard (3)', numerator: 'rate-limit-3', denominator: 'throttler-3' },
    { label: 'ThrottlerGuard (3) / bare', numerator: 'throttler-3', denominator: 'bare' },
    { label: '@WithLock / bare', numerator: 'with-lock', denominator: 'bare' },
  ];
}

/** App CPU per request over the bare route: ours with the bound and, where there is one, the peer to stay below. */
const CPU_DIFFERENCES: DifferenceSpec[] = (
  [
    // What a decorator that is a Nest interceptor pays before doing anything (issue 33 makes ours interceptors).
    { label: 'pass-through interceptor − bare', numerator: 'bare-intercepted' },
    { label: '@Cacheable (near cache) − bare', numerator: 'cacheable-near', atMost: 5 },
    { label: '@Cacheable (Redis hit) − bare', numerator: 'cacheable', atMost: 15, peer: 'cache-interceptor' },
    { label: 'CacheInterceptor − bare', numerator: 'cache-interceptor' },
    { label: '@RateLimit (1 policy) − bare', numerator: 'rate-limit-1', atMost: 20, peer: 'throttler-1' },
    { label: 'ThrottlerGuard (1) − bare', numerator: 'throttler-1' },
    { label: '@RateLimit (3 policies) − bare', numerator: 'rate-limit-3', atMost: 20, peer: 'throttler-3' },
    { label: 'ThrottlerGuard (3) − bare', numerator: 'throttler-3' },
    { label: '@WithLock − bare', numerator: 'with-lock', atMost: 35 },
  ] as const
).map((d) => ({ ...d, baseline: 'bare', metric: 'clientCpuUsPerOp' }));

function throughputGroup(ctx: SuiteContext, adapter: HttpAdapterName, id: string, title: string): BenchGroup {
  const { durationMs, warmupMs } = timing(ctx);
  return {
    id,
    title,
    unit: UNIT,
    load:
      `autocannon, ${ctx.http.connections} connections, as fast as the app answers, ${durationMs / 1000} s per route per round ` +
      `after a ${warmupMs / 1000} s warm-up; every route in one app process, autocannon in the benchmark process; ` +
      "client CPU = the app process's CPU per request",
    contenders: contenders(ctx, adapter, { kind: 'saturation' }),
    ratios: throughputRatios(adapter === 'express'),
  };
}

/**
 * App CPU per request at FIXED_RATE. Its resolution is the spread between rounds. The app's old generation grows by
 * some 20 MB per 2,000 Express requests (requests in flight survive young collections), and a full collection falling
 * inside one route's window moved that route's figure by up to ±100 µs: the app now runs a full collection before
 * each measured window (AppProcess.collectGarbage), and each window pays only the young collections of its own
 * garbage. Measured on Express after that change, one route's figure still spans about ±40 µs over 6 rounds (bare
 * 280–356 µs, against 228–397 before): other work shares both cores, and at this rate most of a request's CPU is the
 * app waking up for each burst, not the route. A difference of a few µs from bare is within it.
 */
function cpuGroup(ctx: SuiteContext, adapter: HttpAdapterName, id: string, title: string): BenchGroup {
  const { durationMs, warmupMs } = timing(ctx);
  const windowS = fixedRateWindowS(durationMs);
  return {
    id,
    title,
    unit: UNIT,
    load:
      `autocannon, ${ctx.http.connections} connections, ${FIXED_RATE.toLocaleString('en-US')} requests/s for ${windowS} s per route per ` +
      `round (each connection sends its share of a second's requests back to back at the start of the second, then waits), ` +
      `after a ${warmupMs / 1000} s warm-up at saturation; every route in one app process; ` +
      "client CPU = the app process's CPU per request (its threads' run time), after a full garbage collection before each window; " +
      'a round that answered under 95% of the rate counts the shortfall as errors',
    contenders: contenders(ctx, adapter, { kind: 'fixed-rate', requestsPerSecond: FIXED_RATE, roundMs: durationMs }),
    ratios: [],
    differences: CPU_DIFFERENCES,
  };
}

/**
 * HTTP throughput on Express: every route in one app process, autocannon in the benchmark process at saturation. The
 * bare endpoint is the limit; the others return the same document through a cache hit (from Redis, or from the
 * near cache's L1 with no Redis command at all), an allowed rate-limit decision (1 or 3 policies) or an
 * uncontended lock, beside the peer for each.
 */
export function httpGroup(ctx: SuiteContext): BenchGroup {
  return throughputGroup(ctx, 'express', 'http', 'HTTP throughput (Express)');
}

/** App CPU per request on Express at a fixed request rate below saturation, as µs over the bare route. */
export function httpCpuGroup(ctx: SuiteContext): BenchGroup {
  return cpuGroup(ctx, 'express', 'http-cpu', 'HTTP app CPU per request (Express, fixed rate)');
}

/** As httpGroup, on Fastify (`@nestjs/platform-fastify`). */
export function httpFastifyGroup(ctx: SuiteContext): BenchGroup {
  return throughputGroup(ctx, 'fastify', 'http-fastify', 'HTTP throughput (Fastify)');
}

/** As httpCpuGroup, on Fastify. */
export function httpFastifyCpuGroup(ctx: SuiteContext): BenchGroup {
  return cpuGroup(ctx, 'fastify', 'http-fastify-cpu', 'HTTP app CPU per request (Fastify, fixed rate)');
}

/** The plan of the four HTTP groups: longer rounds than the library groups, no probe. */
export function httpPlan(args: BenchArgs): RunPlan {
  return { ...timing(args), probeOps: 0 };
}
