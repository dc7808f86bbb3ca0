import type { Provider } from '@nestjs/common';
import { RESOLVED_OPTIONS } from '../redis-patterns.constants';
import type { ResolvedRedisPatternsOptions } from '../redis-patterns.options';
import { RATE_LIMIT_SETTINGS, resolveRateLimitSettings } from './rate-limit-options';
import { RateLimitAdvisor } from './rate-limit.advisor';
import { RateLimitGuard } from './rate-limit.guard';
import { RateLimitIdentity } from './rate-limit-identity';
import { RateLimitMetadataValidator } from './rate-limit-metadata.validator';
import { RateLimiterService } from './rate-limiter.service';

/** The providers (services, advisors, guards) of this pattern; the module provides and exports them all. */
export const RATE_LIMIT_PROVIDERS: Provider[] = [
  {
    provide: RATE_LIMIT_SETTINGS,
    useFactory: (options: ResolvedRedisPatternsOptions) => resolveRateLimitSettings(options.rateLimit),
    inject: [RESOLVED_OPTIONS],
  },
  RateLimiterService,
  RateLimitIdentity,
  RateLimitAdvisor,
  RateLimitGuard,
  RateLimitMetadataValidator,
];
