import type { Provider } from '@nestjs/common';
import { RESOLVED_OPTIONS } from '../redis-patterns.constants';
import type { ResolvedRedisPatternsOptions } from '../redis-patterns.options';
import { RedisConnections } from '../core/connections/redis-connections';
import { LEASE_SETTINGS, type LeaseSettings, resolveLeaseSettings } from '../lease/lease.options';
import { createExclusiveLeaseStore } from '../lease/create-exclusive-lease-store';
import { LOCK_STORE } from './lock.store';
import { LockRuntime } from './lock.runtime';
import { LockService } from './lock.service';
import { storeProvider } from '../core/connections/store-provider';
import { MemoryReadWriteStore } from './memory/memory-read-write.store';
import { READ_WRITE_STORE, type ReadWriteStore, RedisReadWriteStore } from './read-write-lock.store';
import { WithLockAdvisor } from './with-lock.advisor';

/** The provider of the {@link ReadWriteStore}: on the lock section's connection, or in memory. */
const READ_WRITE_STORE_PROVIDER = storeProvider<LeaseSettings, ReadWriteStore>(READ_WRITE_STORE, LEASE_SETTINGS, {
  memory: (keyspace, settings) => new MemoryReadWriteStore(keyspace, settings.fenceTtlMs),
  redis: (redis, settings) => new RedisReadWriteStore(redis, settings.fenceTtlMs),
});

/** The providers (services, advisors, guards) of this pattern; the module provides and exports them all. */
export const LOCK_PROVIDERS: Provider[] = [
  {
    provide: LEASE_SETTINGS,
    useFactory: (options: ResolvedRedisPatternsOptions) => resolveLeaseSettings(options.lock),
    inject: [RESOLVED_OPTIONS],
  },
  {
    provide: LOCK_STORE,
    useFactory: (settings: LeaseSettings, connections: RedisConnections) => createExclusiveLeaseStore(settings, connections),
    inject: [LEASE_SETTINGS, RedisConnections],
  },
  READ_WRITE_STORE_PROVIDER,
  LockRuntime,
  LockService,
  WithLockAdvisor,
];
