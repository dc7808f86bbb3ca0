import type { Provider } from '@nestjs/common';
import { SemaphoreRuntime } from './semaphore.runtime';
import { SemaphoreService } from './semaphore.service';
import { SEMAPHORE_STORE_PROVIDER } from './semaphore.store';
import { WithPermitAdvisor } from './with-permit.advisor';

/**
 * The providers (services, advisors, guards) of this pattern; the module provides and exports them all. Semaphores
 * have no option section: they use the `lock` section's settings (LEASE_SETTINGS, provided by the lock pattern).
 */
export const SEMAPHORE_PROVIDERS: Provider[] = [SEMAPHORE_STORE_PROVIDER, SemaphoreRuntime, SemaphoreService, WithPermitAdvisor];
