// The public surface of nestjs-redis-patterns: explicit named exports (`export type` for interfaces). Everything
// else is internal; etc/nestjs-redis-patterns.api.md records this surface, and CI fails when it changes unrecorded.

// Module and options
export { RedisPatternsModule } from './redis-patterns.module';
export { REDIS_PATTERNS_OPTIONS } from './redis-patterns.module-definition';
export { getRedisConnectionToken } from './redis-patterns.constants';
export type { RedisPatternsModuleOptions } from './redis-patterns.options';
export type { RedisPatternsCoreOptions } from './core/options/core-module-options.interface';
export type {
  AdoptedClientConfig,
  ClusterConnectionConfig,
  RedisConnectionConfig,
  SentinelConnectionConfig,
} from './core/options/connection-config.interface';

// Connections
export { RedisConnections } from './core/connections/redis-connections';
export type { RedisClient } from './core/connections/redis-connections';
export { InjectRedis } from './core/connections/inject-redis.decorator';

// Errors shared by the patterns, and their mapping to each transport. The errors that only fail startup (a connection
// not configured, a decorator where it cannot apply, a class used without the module, a server feature in the
// in-memory mode) are matched by their `code` (docs/errors.md); their classes are not exported.
export { AnsweredRedisPatternsError, RedisPatternsError } from './errors/redis-patterns.error';
export type { RedisPatternsErrorCode } from './errors/redis-patterns.error';
export { InvalidOptionsError } from './errors/invalid-options.error';
export { InvalidArgumentError } from './errors/invalid-argument.error';
export { RedisRefusedError } from './errors/redis-refused.error';
export { RedisUnavailableError } from './errors/redis-unavailable.error';
export type { RedisUnavailableReason } from './errors/redis-unavailable.error';
export { ConnectionStartupError } from './core/connections/connection-startup.error';
export type { ConnectionStartup } from './core/connections/startup-wait';
export type { ConnectionFailureKind } from './core/connections/connection-failure';
export { HttpMappableDomainError } from './errors/http-mappable';
export type { HttpMappableError, HttpResponseSpec } from './errors/http-mappable';

// Patterns
// A held lock, read-write lease, permit or leader lease: what `Lock` and `Permit` share.
export { Lease } from './lease/lease';
export * from './cache/index';
export * from './rate-limit/index';
export * from './lock/index';
export * from './semaphore/index';
export * from './leader-election/index';
export * from './idempotency/index';
// Pub/sub, Streams and the data structures have entries of their own (`nestjs-redis-patterns/messaging`,
// `nestjs-redis-patterns/structures`); the root keeps their sections of the module options.
export type { PubSubOptions } from './messaging/pubsub.options';
export type { StreamsOptions } from './messaging/streams.options';
export type { SessionsOptions } from './structures/sessions.options';
export type { LeaderboardOptions } from './structures/leaderboard.options';
export type { UniqueCounterOptions } from './structures/unique-counter.options';
export type { CappedListOptions } from './structures/capped-list.options';
