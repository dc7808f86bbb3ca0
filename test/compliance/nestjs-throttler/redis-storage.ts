import { type DynamicModule, Module } from '@nestjs/common';
import { ThrottlerModule as NestThrottlerModule, type ThrottlerModuleOptions } from '@nestjs/throttler';
import { RateLimiterService, RedisPatternsModule } from 'nestjs-redis-patterns';
import { RedisPatternsThrottlerStorage } from 'nestjs-redis-patterns/adapters';
import { connectionFor, uniquePrefix } from '../../support/redis-env';

@Module({})
class ThrottlerOnRedisModule {}

/**
 * Stands in for `@nestjs/throttler`'s `ThrottlerModule` in its own test apps: the same `forRoot(options)`, with
 * `RedisPatternsThrottlerStorage` as the storage, on the harness's standalone Redis. Each application gets a key
 * prefix of its own, as each upstream application had an in-memory storage of its own.
 */
export const ThrottlerModule = {
  forRoot(options: ThrottlerModuleOptions): DynamicModule {
    return {
      module: ThrottlerOnRedisModule,
      imports: [
        RedisPatternsModule.forRootAsync({
          useFactory: () => ({ connection: connectionFor('standalone'), keyPrefix: uniquePrefix('nestjs-throttler') }),
        }),
        NestThrottlerModule.forRootAsync({
          inject: [RateLimiterService],
          useFactory: (limiter: RateLimiterService) => ({
            ...(Array.isArray(options) ? { throttlers: options } : options),
            storage: new RedisPatternsThrottlerStorage(limiter),
          }),
        }),
      ],
    };
  },
};
