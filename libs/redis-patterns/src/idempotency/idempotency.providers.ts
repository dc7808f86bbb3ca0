import type { Provider } from '@nestjs/common';
import { RESOLVED_OPTIONS } from '../redis-patterns.constants';
import type { ResolvedRedisPatternsOptions } from '../redis-patterns.options';
import { IDEMPOTENCY_SETTINGS, type IdempotencySettings, resolveIdempotencySettings } from './idempotency.options';
import { storeProvider } from '../core/connections/store-provider';
import { MemoryIdempotencyStore } from './memory/memory-idempotency.store';
import { IDEMPOTENCY_STORE, type IdempotencyStore, RedisIdempotencyStore } from './idempotency.store';
import { IdempotencyRuntime } from './idempotency.runtime';
import { IdempotencyService } from './idempotency.service';
import { IdempotentAdvisor } from './idempotent.advisor';

/** The provider of the store: in memory with `connection: 'memory://'`, else on the section's connection. */
const IDEMPOTENCY_STORE_PROVIDER = storeProvider<IdempotencySettings, IdempotencyStore>(IDEMPOTENCY_STORE, IDEMPOTENCY_SETTINGS, {
  memory: (keyspace) => new MemoryIdempotencyStore(keyspace),
  redis: (redis) => new RedisIdempotencyStore(redis),
});

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
