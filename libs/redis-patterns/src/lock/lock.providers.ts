import type { Provider } from '@nestjs/common';
import { RESOLVED_OPTIONS } from '../redis-patterns.constants';
import type { ResolvedRedisPatternsOptions } from '../redis-patterns.options';
import { RedisConnections } from '../core/connections/redis-connections';
import { LOCK_SETTINGS, type LockSettings, resolveLockSettings } from './lock.options';
import { createLockStore, LOCK_STORE } from './lock.store';
import { LockService } from './lock.service';
import { READ_WRITE_STORE_PROVIDER } from './read-write-lock.store';
import { WithLockAdvisor } from './with-lock.advisor';

/** The providers (services, advisors, guards) of this pattern; the module provides and exports them all. */
export const LOCK_PROVIDERS: Provider[] = [
  {
    provide: LOCK_SETTINGS,
    useFactory: (options: ResolvedRedisPatternsOptions) => resolveLockSettings(options.lock),
    inject: [RESOLVED_OPTIONS],
  },
  {
    provide: LOCK_STORE,
    useFactory: (settings: LockSettings, connections: RedisConnections) => createLockStore(settings, connections),
    inject: [LOCK_SETTINGS, RedisConnections],
  },
  READ_WRITE_STORE_PROVIDER,
  LockService,
  WithLockAdvisor,
];
