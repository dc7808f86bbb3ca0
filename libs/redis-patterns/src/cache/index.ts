// Public surface of this pattern: explicit named exports (`export type` for interfaces).
export { CACHE_PROVIDERS } from './cache.providers';
export type { CacheOptions } from './cache-options';
