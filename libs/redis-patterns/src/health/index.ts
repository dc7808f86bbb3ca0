// Public surface of this pattern: explicit named exports (`export type` for interfaces).
export { RedisPatternsHealthIndicator } from './redis-patterns-health.indicator';
export type { ConnectionHealth, ConnectionStatus, RedisHealthCheckOptions, RedisHealthResult, RedisHealthSummary } from './health.types';
export type { NodeProbe } from './health.types';
export { RedisHealthCheckError } from './redis-health-check.error';
