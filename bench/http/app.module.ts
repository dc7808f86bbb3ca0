import { Module } from '@nestjs/common';
import { bareModule } from './bare.app';
import { cacheManagerModule } from './cache-manager.app';
import { oursModule } from './ours.app';
import { throttlerModule } from './throttler.app';

/**
 * Every benchmark route in one Nest app: the bare endpoint, ours, CacheInterceptor and ThrottlerGuard. The app CPU
 * per request of two routes is only comparable inside one process: in separate apps, each process's JIT and heap
 * state follows the traffic it alone has had, and the bare app (one route) spent 100–200 µs more per request than
 * the routes of the app serving five, our decorators' included, which put every "added cost" below zero. In one
 * process every route runs on the same warmed framework code, heap and background work (Redis connections of all
 * three libraries), so a difference between two routes is what the route itself adds.
 */
export function appModule(redisUrl: string): unknown {
  @Module({
    imports: [
      bareModule() as never,
      oursModule(redisUrl) as never,
      cacheManagerModule(redisUrl) as never,
      throttlerModule(redisUrl) as never,
    ],
  })
  class BenchAppModule {}
  return BenchAppModule;
}
