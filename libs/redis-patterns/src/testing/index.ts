// `nestjs-redis-patterns/testing`: helpers for testing applications that use the module.
export { startTestRedis } from './start-test-redis';
export type { StartTestRedisOptions, TestRedis } from './start-test-redis';
export { useTestRedis } from './use-test-redis';
export type { TestRedisHandle } from './use-test-redis';
export { clearKeys } from './clear-keys';
export type { AppWithRedisPatterns } from './clear-keys';
export type {
  AdoptedClientConfig,
  ClusterConnectionConfig,
  RedisConnectionConfig,
  SentinelConnectionConfig,
} from '../core/options/connection-config.interface';
