import { Logger, type Provider } from '@nestjs/common';
import { clientName } from '../core/connections/create-client';
import { DEFAULT_CONNECTION } from '../core/options/resolve-options';
import { CacheEvictAdvisor } from './advisors/cache-evict.advisor';
import { CachePutAdvisor } from './advisors/cache-put.advisor';
import { CacheableAdvisor } from './advisors/cacheable.advisor';
import { RedisConnections } from '../core/connections/redis-connections';
import { KeyBuilder } from '../core/keys/key-builder';
import { RESOLVED_OPTIONS } from '../redis-patterns.constants';
import type { ResolvedRedisPatternsOptions } from '../redis-patterns.options';
import { CACHE_LOG_CONTEXT, CACHE_SETTINGS, type CacheSettings, resolveCacheSettings } from './cache.options';
import { CacheRuntime } from './cache.runtime';
import { CACHE_STORE, RedisCacheStore } from './cache.store';
import { CacheKeys } from './engine/cache-keys';
import { MemoryCacheStore } from './memory/memory-cache.store';
import { CacheService } from './cache.service';
import { resolveWriteBehindSettings, WRITE_BEHIND_SETTINGS } from './write-behind/write-behind.options';
import { RedisWriteBehindStore, WRITE_BEHIND_STORE } from './write-behind/write-behind.store';
import { MemoryWriteBehindStore } from './memory/memory-write-behind.store';
import { WriteBehindService } from './write-behind/write-behind.service';
import { WriteBehindWriterExplorer } from './write-behind/write-behind-writer.explorer';

/** The providers (services, advisors, guards) of this pattern; the module provides and exports them all. */
export const CACHE_PROVIDERS: Provider[] = [
  {
    provide: CACHE_SETTINGS,
    useFactory: (options: ResolvedRedisPatternsOptions) =>
      resolveCacheSettings(options.cache, 'cache', (message) => (options.logger ?? new Logger(CACHE_LOG_CONTEXT)).warn(message)),
    inject: [RESOLVED_OPTIONS],
  },
  {
    provide: CACHE_STORE,
    useFactory: (options: ResolvedRedisPatternsOptions, settings: CacheSettings, connections: RedisConnections, keys: KeyBuilder) =>
      connections.memory
        ? new MemoryCacheStore(connections.memory, new CacheKeys(keys))
        : new RedisCacheStore(connections.executor(settings.connection), new CacheKeys(keys), {
            connectionName: clientName(options.keyPrefix, settings.connection ?? DEFAULT_CONNECTION, 'near-cache'),
            logger: options.logger ?? new Logger(CACHE_LOG_CONTEXT),
          }),
    inject: [RESOLVED_OPTIONS, CACHE_SETTINGS, RedisConnections, KeyBuilder],
  },
  {
    provide: WRITE_BEHIND_SETTINGS,
    useFactory: (options: ResolvedRedisPatternsOptions) => resolveWriteBehindSettings(options.writeBehind),
    inject: [RESOLVED_OPTIONS],
  },
  {
    provide: WRITE_BEHIND_STORE,
    // A write sets the cache entry and its change record in one script: both live on the cache's connection (the
    // section's validator refuses another).
    useFactory: (cache: CacheSettings, connections: RedisConnections) =>
      connections.memory
        ? new MemoryWriteBehindStore(connections.memory)
        : new RedisWriteBehindStore(connections.executor(cache.connection)),
    inject: [CACHE_SETTINGS, RedisConnections],
  },
  CacheRuntime,
  CacheService,
  CacheableAdvisor,
  CachePutAdvisor,
  CacheEvictAdvisor,
  WriteBehindService,
  WriteBehindWriterExplorer,
];
