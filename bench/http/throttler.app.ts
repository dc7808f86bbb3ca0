import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import { Controller, Get, Module, UseGuards } from '@nestjs/common';
import { ThrottlerGuard, ThrottlerModule } from '@nestjs/throttler';
import Redis from 'ioredis';
import { CACHED_VALUE } from '../suites/payload';

/** ThrottlerGuard with @nest-lab/throttler-storage-redis, one throttler with a limit no benchmark reaches. */
@Controller()
class ThrottledController {
  @Get('limited')
  @UseGuards(ThrottlerGuard)
  limited() {
    return CACHED_VALUE;
  }
}

export function throttlerModule(redisUrl: string): unknown {
  @Module({
    imports: [
      ThrottlerModule.forRoot({
        throttlers: [{ ttl: 60_000, limit: 1_000_000_000 }],
        storage: new ThrottlerStorageRedisService(new Redis(redisUrl)),
      }),
    ],
    controllers: [ThrottledController],
  })
  class ThrottlerBenchModule {}
  return ThrottlerBenchModule;
}
