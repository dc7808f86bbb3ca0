import type { Provider } from '@nestjs/common';
import { RESOLVED_OPTIONS } from '../redis-patterns.constants';
import type { ResolvedRedisPatternsOptions } from '../redis-patterns.options';
import { LOCK_SETTINGS, resolveLockSettings } from './lock-options';
import { LockService } from './lock.service';
import { WithLockAdvisor } from './with-lock.advisor';

/** The providers (services, advisors, guards) of this pattern; the module provides and exports them all. */
export const LOCK_PROVIDERS: Provider[] = [
  {
    provide: LOCK_SETTINGS,
    useFactory: (options: ResolvedRedisPatternsOptions) => resolveLockSettings(options.lock),
    inject: [RESOLVED_OPTIONS],
  },
  LockService,
  WithLockAdvisor,
];
