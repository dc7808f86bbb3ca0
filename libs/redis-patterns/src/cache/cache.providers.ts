import type { Provider } from '@nestjs/common';
import { CacheEvictAdvisor } from './advisors/cache-evict.advisor';
import { CachePutAdvisor } from './advisors/cache-put.advisor';
import { CacheableAdvisor } from './advisors/cacheable.advisor';
import { CacheRuntime } from './cache.runtime';
import { CacheService } from './cache.service';

/** The providers (services, advisors, guards) of this pattern; the module provides and exports them all. */
export const CACHE_PROVIDERS: Provider[] = [CacheRuntime, CacheService, CacheableAdvisor, CachePutAdvisor, CacheEvictAdvisor];
