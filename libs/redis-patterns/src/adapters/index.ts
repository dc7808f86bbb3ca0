// `nestjs-redis-patterns/adapters`: the library's stores behind other libraries' interfaces, for applications that
// keep cache-manager or @nestjs/throttler while moving their storage here.
export { RedisPatternsKeyvStore } from '../cache/adapters/keyv-store';
export { RedisPatternsThrottlerStorage } from '../rate-limit/adapters/throttler-storage';
export type { RedisPatternsThrottlerStorageOptions, ThrottlerStorageRecord } from '../rate-limit/adapters/throttler-storage';
