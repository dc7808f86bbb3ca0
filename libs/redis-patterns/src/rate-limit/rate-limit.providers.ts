import type { Provider } from '@nestjs/common';
import { RateLimitAdvisor } from './rate-limit.advisor';
import { RateLimitGuard } from './rate-limit.guard';
import { RateLimitIdentity } from './rate-limit-identity';
import { RateLimitMetadataValidator } from './rate-limit-metadata.validator';
import { RateLimiterService } from './rate-limiter.service';

/** The providers (services, advisors, guards) of this pattern; the module provides and exports them all. */
export const RATE_LIMIT_PROVIDERS: Provider[] = [
  RateLimiterService,
  RateLimitIdentity,
  RateLimitAdvisor,
  RateLimitGuard,
  RateLimitMetadataValidator,
];
