import KeyvRedis from '@keyv/redis';
import { CacheInterceptor, CacheModule, CacheTTL } from '@nestjs/cache-manager';
import { Controller, Get, Module, UseInterceptors } from '@nestjs/common';
import { Keyv } from 'keyv';
import { CACHE_TTL_S, CACHED_VALUE } from '../suites/payload';
import { HTTP_ROUTES, routeOf } from './routes';

/** @nestjs/cache-manager's CacheInterceptor on a Keyv + @keyv/redis store, as its documentation sets it up. */
@Controller()
class CacheManagerController {
  @Get(routeOf(HTTP_ROUTES.cacheInterceptor))
  @UseInterceptors(CacheInterceptor)
  @CacheTTL(CACHE_TTL_S * 1000)
  cached() {
    return CACHED_VALUE;
  }
}

export function cacheManagerModule(redisUrl: string): unknown {
  @Module({
    // `as never`: keyv ships separate CommonJS and ES module typings, and cache-manager's options name the other one.
    imports: [CacheModule.register({ stores: [new Keyv({ store: new KeyvRedis(redisUrl), namespace: 'bench-http-cm' }) as never] })],
    controllers: [CacheManagerController],
  })
  class CacheManagerModule {}
  return CacheManagerModule;
}
