import type { Provider } from '@nestjs/common';
import { SemaphoreRuntime } from './semaphore.runtime';
import { SemaphoreService } from './semaphore.service';
import { storeProvider } from '../core/connections/store-provider';
import { LEASE_SETTINGS, type LeaseSettings } from '../lease/lease.options';
import { MemorySemaphoreStore } from './memory/memory-semaphore.store';
import { RedisSemaphoreStore, SEMAPHORE_STORE, type SemaphoreStore } from './semaphore.store';
import { WithPermitAdvisor } from './with-permit.advisor';

/** The provider of the {@link SemaphoreStore}: the lock section's connection and fencing counter TTL, or memory. */
const SEMAPHORE_STORE_PROVIDER = storeProvider<LeaseSettings, SemaphoreStore>(SEMAPHORE_STORE, LEASE_SETTINGS, {
  memory: (keyspace, settings) => new MemorySemaphoreStore(keyspace, settings.fenceTtlMs),
  redis: (redis, settings) => new RedisSemaphoreStore(redis, settings.fenceTtlMs),
});

/**
 * The providers (services, advisors, guards) of this pattern; the module provides and exports them all. Semaphores
 * have no option section: they use the `lock` section's settings (LEASE_SETTINGS, provided by the lock pattern).
 */

export const SEMAPHORE_PROVIDERS: Provider[] = [SEMAPHORE_STORE_PROVIDER, SemaphoreRuntime, SemaphoreService, WithPermitAdvisor];
