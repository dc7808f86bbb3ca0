// Module and options
export { RedisPatternsModule } from './redis-patterns.module';
export { REDIS_PATTERNS_OPTIONS } from './redis-patterns.module-definition';
export { RESOLVED_OPTIONS, getRedisConnectionToken } from './redis-patterns.constants';
export type { RedisPatternsModuleOptions } from './core/options/redis-patterns-options.interface';
export type {
  AdoptedClientConfig,
  ClusterConnectionConfig,
  RedisConnectionConfig,
  SentinelConnectionConfig,
} from './core/options/connection-config.interface';
export { DEFAULT_CONNECTION, resolveOptions } from './core/options/resolve-options';
export type { ResolvedRedisPatternsOptions } from './core/options/resolve-options';

// Connections
export { RedisConnections } from './core/connections/redis-connections';
export type { RedisClient } from './core/connections/redis-connections';
export { InjectRedis } from './core/connections/inject-redis.decorator';
export { failFastOptions, DEDICATED_CONNECTION_OVERRIDES } from './core/connections/fail-fast-defaults';

// Building blocks
export { KeyBuilder } from './core/keys/key-builder';
export { escapeKeyPart, MAX_KEY_PART_LENGTH } from './core/keys/escape-key-part';
export { defineScript, registerScripts, runScript } from './core/scripts/redis-script';
export type { RedisScript } from './core/scripts/redis-script';
export { defineBatchedScript } from './core/scripts/batched-script';
export type { BatchedScript } from './core/scripts/batched-script';
export { runBatched } from './core/scripts/run-batched';
export { createAdvisedDecorator } from './core/advice/create-advised-decorator';
export type { AdvisedMethod, MethodAdvice, MethodAdvisor, MethodInvocation } from './core/advice/method-advice.interface';
export type { HttpCall } from './core/advice/handler-call';
export type { HandlerKind } from './core/advice/handler-kind';
export { GraphQLContextError } from './core/advice/context-errors';

// Errors
export { InvalidOptionsError } from './errors/invalid-options.error';
export { InvalidArgumentError } from './errors/invalid-argument.error';
export { ConnectionNotFoundError } from './errors/connection-not-found.error';
export { RedisPatternsNotBoundError } from './errors/redis-patterns-not-bound.error';
export { UnsupportedHandlerError } from './errors/unsupported-handler.error';
export { HttpMappableDomainError } from './errors/http-mappable';
export type { HttpMappableError, HttpResponseSpec } from './errors/http-mappable';
export { HttpMappableErrorFilter } from './core/advice/http-mappable-error.filter';

// Patterns
export * from './cache/index';
export * from './rate-limit/index';
export * from './lock/index';
export * from './messaging/index';
export * from './structures/index';
export * from './health/index';
