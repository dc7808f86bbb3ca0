// Public surface of this pattern: explicit named exports (`export type` for interfaces).
export type { CacheOptions } from './cache.options';
export { CacheService } from './cache.service';
export { Cacheable } from './decorators/cacheable.decorator';
export type { CacheableOptions, TypedMethodDecorator } from './decorators/cacheable.decorator';
export { CachePut } from './decorators/cache-put.decorator';
export type { CachePutOptions } from './decorators/cache-put.decorator';
export { CacheEvict } from './decorators/cache-evict.decorator';
export type { CacheEvictOptions } from './decorators/cache-evict.decorator';
export type { KeySource, TagsSource } from './advisors/compile-sources';
export type { EntryOptions, WrapOptions } from './engine/entry-policy';
export type { CacheStatus, Fetched } from './engine/cache-engine';
export type { CacheStats } from './engine/cache-health';
export type { NearCacheOptions } from './near/near-cache.options';
export type { NearCacheStats } from './near/l1-store';
export { CacheSerializationError } from './cache-serialization.error';
export { CacheValueTooLargeError } from './cache-value-too-large.error';
export { RedisPatternsKeyvStore } from './adapters/keyv-store';
