import { Controller, Get, Module, Query } from '@nestjs/common';
import { libraryExport } from '../lib/our-library';
import { CACHE_TTL_S, CACHED_VALUE } from '../suites/payload';
import { decorateMethod } from './decorate';

type DecoratorFactory = (options: object) => MethodDecorator;

/** Our decorators on three endpoints: @Cacheable (a hit after the first call), @RateLimit (always allowed), @WithLock. */
@Controller()
class OursController {
  cached() {
    return CACHED_VALUE;
  }

  limited() {
    return CACHED_VALUE;
  }

  locked(id: string) {
    return { ...CACHED_VALUE, id };
  }
}

// Endpoints whose decorator is not in the library yet are left unrouted (the runner reports them as not available).
const Cacheable = libraryExport<DecoratorFactory>('Cacheable');
const RateLimit = libraryExport<DecoratorFactory>('RateLimit');
const WithLock = libraryExport<DecoratorFactory>('WithLock');
if (Cacheable) decorateMethod(OursController, 'cached', [Get('cached'), Cacheable({ key: 'http-user', ttl: CACHE_TTL_S })]);
// A limit no benchmark reaches: every request takes the allowed path, which is the one that costs work.
if (RateLimit) decorateMethod(OursController, 'limited', [Get('limited'), RateLimit({ algorithm: 'fixed-window', limit: 1_000_000_000, windowMs: 60_000 })]);
if (WithLock) {
  Query('id')(OursController.prototype, 'locked', 0);
  decorateMethod(OursController, 'locked', [Get('locked'), WithLock({ resource: (id: string) => `order:${id}`, ttlMs: 5_000 })]);
}

export function oursModule(redisUrl: string): unknown {
  const RedisPatternsModule = libraryExport<{ forRoot(options: object): unknown }>('RedisPatternsModule')!;
  @Module({ imports: [RedisPatternsModule.forRoot({ connection: redisUrl, keyPrefix: 'bench-http' }) as never], controllers: [OursController] })
  class OursModule {}
  return OursModule;
}
