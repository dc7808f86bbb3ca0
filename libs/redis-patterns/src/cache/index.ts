// Public surface of this pattern: explicit named exports (`export type` for interfaces).
export { CACHE_PROVIDERS } from './cache.providers';
export type { CacheOptions } from './cache-options';
export { CacheService } from './cache.service';
export { Cacheable } from './decorators/cacheable.decorator';
export type { CacheableOptions, TypedMethodDecorator } from './decorators/cacheable.decorator';
export { CachePut } from './decorators/cache-put.decorator';
export type { CachePutOptions } from './decorators/cache-put.decorator';
export { CacheEvict } from './decorators/cache-evict.decorator';
export type { CacheEvictOptions } from './decorators/cache-evict.decorator';
export { CacheableAdvisor } from './advisors/cacheable.advisor';
export { CachePutAdvisor } from './advisors/cache-put.advisor';
export { CacheEvictAdvisor } from './advisors/cache-evict.advisor';
export type { KeySource, TagsSource } from './advisors/compile-sources';
export type { EntryOptions, WrapOptions } from './engine/entry-policy';
export type { CacheStatus, Fetched } from './engine/cache-engine';
export type { CacheStats } from './engine/cache-health';
export { CacheSerializationError } from '../errors/cache-serialization.error';
export { CacheValueTooLargeError } from '../errors/cache-value-too-large.error';
