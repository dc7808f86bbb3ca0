import { Controller, Get, Inject, Module, Query } from '@nestjs/common';
import { libraryExport } from '../lib/our-library';
import { CACHE_TTL_S, CACHED_VALUE } from '../suites/payload';
import { decorateMethod } from './decorate';
import { NEAR_CACHED_PATH, NEAR_STATS_PATH } from './near-cache-stats';
import { RATE_LIMIT_WINDOWS, SINGLE_WINDOW, UNREACHED_LIMIT } from './rate-limit-windows';
import { HTTP_ROUTES, routeOf } from './routes';

type DecoratorFactory = (options: object) => MethodDecorator;

/**
 * Our decorators on five endpoints: @Cacheable (a hit after the first call, read from Redis), @Cacheable with the
 * near cache (an L1 hit after the first call), @RateLimit with one and with three policies (always allowed),
 * @WithLock.
 */
@Controller()
class OursController {
  cached() {
    return CACHED_VALUE;
  }

  limited() {
    return CACHED_VALUE;
  }

  limited3() {
    return CACHED_VALUE;
  }

  locked(id: string) {
    return { ...CACHED_VALUE, id };
  }

  nearCached() {
    return CACHED_VALUE;
  }
}

/** The near cache's counters, so the benchmark can check that the near-cache endpoint was answered from L1. */
class NearStatsController {
  constructor(private readonly cache: { nearStats(): unknown }) {}

  stats() {
    return this.cache.nearStats();
  }
}

// Endpoints whose decorator is not in the library yet are left unrouted (the runner reports them as not available).
const Cacheable = libraryExport<DecoratorFactory>('Cacheable');
const CacheService = libraryExport<new (...args: never[]) => object>('CacheService');
const RateLimit = libraryExport<DecoratorFactory>('RateLimit');
const WithLock = libraryExport<DecoratorFactory>('WithLock');
if (Cacheable)
  decorateMethod(OursController, 'cached', [Get(routeOf(HTTP_ROUTES.cacheable)), Cacheable({ key: 'http-user', ttl: CACHE_TTL_S })]);
// Fixed windows, as ThrottlerGuard counts, with limits no run reaches (see rate-limit-windows.ts).
if (RateLimit) {
  decorateMethod(OursController, 'limited', [
    Get(routeOf(HTTP_ROUTES.rateLimit)),
    RateLimit({ algorithm: 'fixed-window', limit: UNREACHED_LIMIT, windowMs: SINGLE_WINDOW.windowMs }),
  ]);
  const policies = RATE_LIMIT_WINDOWS.map((w) => ({ algorithm: 'fixed-window', limit: UNREACHED_LIMIT, windowMs: w.windowMs }));
  decorateMethod(OursController, 'limited3', [Get(routeOf(HTTP_ROUTES.rateLimit3)), RateLimit(policies)]);
}
if (WithLock) {
  Query('id')(OursController.prototype, 'locked', 0);
  decorateMethod(OursController, 'locked', [
    Get(routeOf(HTTP_ROUTES.locked)),
    WithLock({ resource: (request: { query: { id: string } }) => `order:${request.query.id}`, ttlMs: 5_000 }),
  ]);
}
// Near cache turned on for this method only (the module default stays off), as an application would for a hot key.
const nearRouted = Cacheable !== undefined && CacheService !== undefined;
if (nearRouted) {
  decorateMethod(OursController, 'nearCached', [
    Get(routeOf(NEAR_CACHED_PATH)),
    Cacheable({ key: 'http-near', ttl: CACHE_TTL_S, nearCache: true }),
  ]);
  Inject(CacheService)(NearStatsController, undefined as never, 0);
  Controller()(NearStatsController);
  decorateMethod(NearStatsController, 'stats', [Get(routeOf(NEAR_STATS_PATH))]);
}

export function oursModule(redisUrl: string): unknown {
  const RedisPatternsModule = libraryExport<{ forRoot(options: object): unknown }>('RedisPatternsModule')!;
  @Module({
    imports: [RedisPatternsModule.forRoot({ connection: redisUrl, keyPrefix: 'bench-http' }) as never],
    controllers: nearRouted ? [OursController, NearStatsController] : [OursController],
  })
  class OursModule {}
  return OursModule;
}
