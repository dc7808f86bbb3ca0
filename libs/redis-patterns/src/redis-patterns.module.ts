import { absentClient } from './core/memory/absent-client';
import { type ConfigurableModuleAsyncOptions, type DynamicModule, Module, type Provider } from '@nestjs/common';
import { APP_FILTER, DiscoveryModule } from '@nestjs/core';
import { CACHE_PROVIDERS } from './cache/cache.providers';
import { HttpMappableErrorFilter } from './core/advice/http-mappable-error.filter';
import { DroppedEventLog } from './core/advice/dropped-event-log';
import { MethodAdviceExplorer } from './core/advice/method-advice.explorer';
import { requestedConnectionNames } from './core/connections/inject-redis.decorator';
import { RedisConnections } from './core/connections/redis-connections';
import { KeyBuilder } from './core/keys/key-builder';
import { resolveOptions, type RedisPatternsModuleOptions, type ResolvedRedisPatternsOptions } from './redis-patterns.options';
import { HEALTH_PROVIDERS } from './health/health.providers';
import { LOCK_PROVIDERS } from './lock/lock.providers';
import { MESSAGING_PROVIDERS } from './messaging/messaging.providers';
import { RATE_LIMIT_PROVIDERS } from './rate-limit/rate-limit.providers';
import { getRedisConnectionToken, RESOLVED_OPTIONS } from './redis-patterns.constants';
import { REDIS_PATTERNS_OPTIONS, RedisPatternsConfigurableModule } from './redis-patterns.module-definition';
import { STRUCTURES_PROVIDERS } from './structures/structures.providers';
import { SEMAPHORE_PROVIDERS } from './semaphore/semaphore.providers';
import { LEADER_ELECTION_PROVIDERS } from './leader-election/leader-election.providers';
import { IDEMPOTENCY_PROVIDERS } from './idempotency/idempotency.providers';

const CORE_PROVIDERS: Provider[] = [
  { provide: RESOLVED_OPTIONS, useFactory: resolveOptions, inject: [REDIS_PATTERNS_OPTIONS] },
  {
    provide: RedisConnections,
    useFactory: (options: ResolvedRedisPatternsOptions) => RedisConnections.open(options),
    inject: [RESOLVED_OPTIONS],
  },
  {
    provide: KeyBuilder,
    useFactory: (options: ResolvedRedisPatternsOptions) => new KeyBuilder(options.keyPrefix),
    inject: [RESOLVED_OPTIONS],
  },
  MethodAdviceExplorer,
  DroppedEventLog,
  // A filter, not an interceptor: it costs nothing unless a library error reaches Nest, where it answers 409/429/503
  // even under a handler that has no decorator of ours.
  { provide: APP_FILTER, useClass: HttpMappableErrorFilter },
];

const PATTERN_PROVIDERS: Provider[] = [
  ...CACHE_PROVIDERS,
  ...RATE_LIMIT_PROVIDERS,
  ...LOCK_PROVIDERS,
  ...SEMAPHORE_PROVIDERS,
  ...LEADER_ELECTION_PROVIDERS,
  ...IDEMPOTENCY_PROVIDERS,
  ...MESSAGING_PROVIDERS,
  ...STRUCTURES_PROVIDERS,
  ...HEALTH_PROVIDERS,
];

/**
 * Redis patterns for Nest: caching, rate limiting, locks, messaging and data structures on ioredis, configured
 * once with `forRoot` / `forRootAsync` (global by default).
 *
 * @example
 * RedisPatternsModule.forRoot({ connection: process.env.REDIS_URL, cache: { defaultTtl: 60 } })
 */
@Module({
  imports: [DiscoveryModule],
  providers: [...CORE_PROVIDERS, ...PATTERN_PROVIDERS],
  // The explorer is what each module's RedisPatternsInterceptor (on decorated handlers) runs the advice through.
  exports: [RESOLVED_OPTIONS, RedisConnections, KeyBuilder, MethodAdviceExplorer, DroppedEventLog, ...PATTERN_PROVIDERS],
})
export class RedisPatternsModule {
  /**
   * Configures the module with options known at import time (global unless `isGlobal: false`). Provides the client
   * of each connection in `connections`, and of each name `@InjectRedis` asks for, to `@InjectRedis(name)`.
   */
  static forRoot(options: RedisPatternsModuleOptions & { isGlobal?: boolean }): DynamicModule {
    const definition = RedisPatternsConfigurableModule.forRoot(options);
    return completeDefinition(definition, Object.keys(options.connections ?? {}));
  }

  /**
   * Configures the module with options built by a provider (`useFactory` with `inject`, `useClass` or
   * `useExisting`), e.g. from `ConfigService`. Since the options are not known yet, `@InjectRedis(name)` is provided
   * for the names the decorators ask for.
   */
  static forRootAsync(
    options: ConfigurableModuleAsyncOptions<RedisPatternsModuleOptions, 'createRedisPatternsOptions'> & { isGlobal?: boolean },
  ): DynamicModule {
    return completeDefinition(RedisPatternsConfigurableModule.forRootAsync(options), []);
  }
}

/**
 * The builder's definition made ours: it names the builder's class as the module (delegating keeps that class and
 * its option types out of the public surface), so the module becomes RedisPatternsModule; plus one provider per
 * connection name, backing `@InjectRedis(name)`.
 */
function completeDefinition(definition: DynamicModule, configured: string[]): DynamicModule {
  const names = new Set([...requestedConnectionNames(), ...configured]);
  const tokens: Provider[] = [...names].map((name) => ({
    provide: getRedisConnectionToken(name),
    useFactory: (connections: RedisConnections) => (connections.memory ? absentClient(name) : connections.get(name)),
    inject: [RedisConnections],
  }));
  return {
    ...definition,
    module: RedisPatternsModule,
    providers: [...(definition.providers ?? []), ...tokens],
    exports: [...(definition.exports ?? []), ...tokens.map((t) => (t as { provide: string }).provide)],
  };
}
