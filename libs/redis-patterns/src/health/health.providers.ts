import type { Provider } from '@nestjs/common';
import { RedisPatternsHealthIndicator } from './redis-patterns-health.indicator';

/** The providers (services, advisors, guards) of this pattern; the module provides and exports them all. */
export const HEALTH_PROVIDERS: Provider[] = [RedisPatternsHealthIndicator];
