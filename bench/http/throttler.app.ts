import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import { Controller, Get, Module, UseGuards } from '@nestjs/common';
import { SkipThrottle, ThrottlerGuard, ThrottlerModule } from '@nestjs/throttler';
import Redis from 'ioredis';
import { CACHED_VALUE } from '../suites/payload';
import { RATE_LIMIT_WINDOWS, SINGLE_WINDOW, UNREACHED_LIMIT } from './rate-limit-windows';
import { HTTP_ROUTES, routeOf } from './routes';

const skipAllBut = (kept: string) => Object.fromEntries(RATE_LIMIT_WINDOWS.filter((w) => w.name !== kept).map((w) => [w.name, true]));

/**
 * ThrottlerGuard with @nest-lab/throttler-storage-redis, as their documentation sets them up, with the three named
 * throttlers of rate-limit-windows.ts. The module's throttlers apply to every guarded route, so the one-throttler
 * route skips the other two with `@SkipThrottle({ name: true })` (the documented way; the guard then checks two skip
 * flags, two metadata reads, and increments one throttler); the three-throttler route awaits one `increment()` per
 * throttler, one after another.
 */
@Controller()
class ThrottledController {
  @Get(routeOf(HTTP_ROUTES.throttler))
  @UseGuards(ThrottlerGuard)
  @SkipThrottle(skipAllBut(SINGLE_WINDOW.name))
  one() {
    return CACHED_VALUE;
  }

  @Get(routeOf(HTTP_ROUTES.throttler3))
  @UseGuards(ThrottlerGuard)
  three() {
    return CACHED_VALUE;
  }
}

export function throttlerModule(redisUrl: string): unknown {
  @Module({
    imports: [
      ThrottlerModule.forRoot({
        throttlers: RATE_LIMIT_WINDOWS.map((w) => ({ name: w.name, ttl: w.windowMs, limit: UNREACHED_LIMIT })),
        // ioredis with its defaults: an auto-pipelined client measured the same here (three throttlers, Express and
        // Fastify: within the round-to-round spread in ops/s and app CPU), so it is not a row of its own.
        storage: new ThrottlerStorageRedisService(new Redis(redisUrl)),
      }),
    ],
    controllers: [ThrottledController],
  })
  class ThrottlerBenchModule {}
  return ThrottlerBenchModule;
}
