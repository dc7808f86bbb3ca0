import type { Provider } from '@nestjs/common';
import { LockService } from './lock.service';
import { WithLockAdvisor } from './with-lock.advisor';

/** The providers (services, advisors, guards) of this pattern; the module provides and exports them all. */
export const LOCK_PROVIDERS: Provider[] = [LockService, WithLockAdvisor];
