import type { Provider } from '@nestjs/common';
import { RESOLVED_OPTIONS } from '../redis-patterns.constants';
import type { ResolvedRedisPatternsOptions } from '../redis-patterns.options';
import { storeProvider } from '../core/connections/store-provider';
import { RATE_LIMIT_SETTINGS, type RateLimitSettings, resolveRateLimitSettings } from './rate-limit.options';
import { MemoryRateLimitStore } from './memory/memory-rate-limit.store';
import { RATE_LIMIT_STORE, type RateLimitStore, RedisRateLimitStore } from './rate-limit.store';
import { RateLimitAdvisor } from './rate-limit.advisor';
import { RateLimitGuard } from './rate-limit.guard';
import { RateLimitIdentity } from './rate-limit-identity';
import { RateLimitMetadataValidator } from './rate-limit-metadata.validator';
import { RateLimiterService } from './rate-limiter.service';
import { RateLimitRuntime } from './rate-limit.runtime';

/** The providers (services, advisors, guards) of this pattern; the module provides and exports them all. */
export const RATE_LIMIT_PROVIDERS: Provider[] = [
  {
    provide: RATE_LIMIT_SETTINGS,
    useFactory: (options: ResolvedRedisPatternsOptions) => resolveRateLimitSettings(options.rateLimit),
    inject: [RESOLVED_OPTIONS],
  },
  storeProvider<RateLimitSettings, RateLimitStore>(RATE_LIMIT_STORE, RATE_LIMIT_SETTINGS, {
    memory: (keyspace) => new MemoryRateLimitStore(keyspace),
    redis: (redis) => new RedisRateLimitStore(redis),
  }),
  RateLimitRuntime,
  RateLimiterService,
  RateLimitIdentity,
  RateLimitAdvisor,
  RateLimitGuard,
  RateLimitMetadataValidator,
];
