// The code of docs/migrating-from-nestjs-throttler.md: what an application has with @nestjs/throttler, the one-line
// route (its storage replaced), and the full switch. `npm test` type-checks this file;
// test/integration/rate-limit/throttler-storage.integration-spec.ts runs the one-line route under ThrottlerGuard.
import { Controller, Get, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { SkipThrottle, Throttle, ThrottlerGuard, ThrottlerModule } from '@nestjs/throttler';
import { clientAddress, RateLimit, RateLimiterService, RedisPatternsModule, SkipRateLimit } from 'nestjs-redis-patterns';
import { RedisPatternsThrottlerStorage } from 'nestjs-redis-patterns/adapters';

// ── Before: @nestjs/throttler, two named throttlers ─────────────────────────────────────────────────────────────
@Controller('search')
export class SearchControllerBefore {
  @Get()
  search() {
    return [];
  }

  @Throttle({ short: { limit: 1, ttl: 1_000 } })
  @Get('expensive')
  expensive() {
    return [];
  }

  @SkipThrottle()
  @Get('health')
  health() {
    return 'ok';
  }
}

@Module({
  imports: [
    // #region before
    ThrottlerModule.forRoot([
      { name: 'short', ttl: 1_000, limit: 3 },
      { name: 'long', ttl: 60_000, limit: 100, blockDuration: 300_000 },
    ]),
    // #endregion before
  ],
  controllers: [SearchControllerBefore],
  providers: [{ provide: APP_GUARD, useClass: ThrottlerGuard }],
})
export class AppModuleBefore {}

// ── The one-line route: same guard, same decorators, this module's storage ─────────────────────────────────────
@Module({
  imports: [
    // #region after
    RedisPatternsModule.forRoot({ connection: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' }),
    ThrottlerModule.forRootAsync({
      inject: [RateLimiterService],
      useFactory: (limiter: RateLimiterService) => ({
        throttlers: [
          { name: 'short', ttl: 1_000, limit: 3 },
          { name: 'long', ttl: 60_000, limit: 100, blockDuration: 300_000 },
        ],
        storage: new RedisPatternsThrottlerStorage(limiter), // the one line
      }),
    }),
    // #endregion after
  ],
  controllers: [SearchControllerBefore],
  providers: [{ provide: APP_GUARD, useClass: ThrottlerGuard }],
})
export class AppModuleWithStorage {}

// ── The full switch: @RateLimit ─────────────────────────────────────────────────────────────────────────────────
// Both named throttlers become one list of policies: one script, one round trip, all-or-nothing (a call denied by
// one policy consumes from none; ThrottlerGuard counts it in the throttlers it passed before the one that denied).
const DEFAULT_POLICIES = [
  { algorithm: 'fixed-window', limit: 3, windowMs: 1_000 },
  { algorithm: 'fixed-window', limit: 100, windowMs: 60_000, blockDurationMs: 300_000 },
] as const;

@Controller('search')
@RateLimit(DEFAULT_POLICIES)
export class SearchController {
  @Get()
  search() {
    return [];
  }

  // A method's own @RateLimit replaces the class's, as @Throttle overrides a named throttler.
  @RateLimit([{ algorithm: 'fixed-window', limit: 1, windowMs: 1_000 }, DEFAULT_POLICIES[1]])
  @Get('expensive')
  expensive() {
    return [];
  }

  @SkipRateLimit()
  @Get('health')
  health() {
    return 'ok';
  }
}

@Module({
  imports: [
    RedisPatternsModule.forRoot({
      connection: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      // ThrottlerModule's ignoreUserAgents / skipIf, on what a client cannot send: a User-Agent is the client's to
      // choose, the loopback address is not (a health checker next to the app). Read it as the limiter does.
      rateLimit: {
        trustProxyHops: 1,
        skipIf: (context) => clientAddress(context.switchToHttp().getRequest(), 1) === '127.0.0.1',
      },
    }),
  ],
  // No APP_GUARD: @RateLimit applies its guard where it is written.
  controllers: [SearchController],
})
export class AppModule {}
