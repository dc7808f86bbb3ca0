import type { Provider } from '@nestjs/common';
import { RedisConnections } from '../core/connections/redis-connections';
import { HEALTH_STORE, MemoryHealthStore, RedisHealthStore } from './health.store';
import { RedisPatternsHealthIndicator } from './redis-patterns-health.indicator';
import { RedisPatternsDoctor } from './redis-patterns-doctor';

/** The providers (services, advisors, guards) of this pattern; the module provides and exports them all. */
export const HEALTH_PROVIDERS: Provider[] = [
  {
    provide: HEALTH_STORE,
    useFactory: (connections: RedisConnections) => (connections.memory ? new MemoryHealthStore() : new RedisHealthStore(connections)),
    inject: [RedisConnections],
  },
  RedisPatternsHealthIndicator,
  RedisPatternsDoctor,
];
