import type { Provider } from '@nestjs/common';
import { RESOLVED_OPTIONS } from '../redis-patterns.constants';
import type { ResolvedRedisPatternsOptions } from '../redis-patterns.options';
import { IDEMPOTENCY_SETTINGS, resolveIdempotencySettings } from './idempotency.options';
import { IDEMPOTENCY_STORE_PROVIDER } from './idempotency.store';
import { IdempotencyRuntime } from './idempotency.runtime';
import { IdempotencyService } from './idempotency.service';
import { IdempotentAdvisor } from './idempotent.advisor';

/** The providers (services, advisors, guards) of this pattern; the module provides and exports them all. */
export const IDEMPOTENCY_PROVIDERS: Provider[] = [
  {
    provide: IDEMPOTENCY_SETTINGS,
    useFactory: (options: ResolvedRedisPatternsOptions) => resolveIdempotencySettings(options.idempotency, options.cache?.maxValueBytes),
    inject: [RESOLVED_OPTIONS],
  },
  IDEMPOTENCY_STORE_PROVIDER,
  IdempotencyRuntime,
  IdempotencyService,
  IdempotentAdvisor,
];
