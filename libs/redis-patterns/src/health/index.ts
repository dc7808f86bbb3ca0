// `nestjs-redis-patterns/health`: the health indicator for @nestjs/terminus (or any readiness endpoint), which the
// module provides; its types and error. Explicit named exports (`export type` for interfaces).
export { RedisPatternsHealthIndicator } from './redis-patterns-health.indicator';
export type { ConnectionHealth, ConnectionStatus, RedisHealthCheckOptions, RedisHealthResult, RedisHealthSummary } from './health.types';
export type { NodeProbe } from './health.types';
export { RedisHealthCheckError } from './redis-health-check.error';
// The base of every library error, which RedisHealthCheckError extends (exported from the root entry).
export type { RedisPatternsError, RedisPatternsErrorCode } from '../errors/redis-patterns.error';
