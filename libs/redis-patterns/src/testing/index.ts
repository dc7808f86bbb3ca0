// `nestjs-redis-patterns/testing`: helpers for testing applications that use the module.
export { startTestRedis } from './start-test-redis';
export type { StartTestRedisOptions, TestRedis } from './start-test-redis';
