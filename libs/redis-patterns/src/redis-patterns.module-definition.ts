import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { RedisPatternsModuleOptions } from './redis-patterns.options';

/**
 * Built by Nest's ConfigurableModuleBuilder: the `forRoot` / `forRootAsync` that `RedisPatternsModule` delegates to
 * (they provide the options object), and the options' injection token.
 */
export const { ConfigurableModuleClass: RedisPatternsConfigurableModule, MODULE_OPTIONS_TOKEN } =
  new ConfigurableModuleBuilder<RedisPatternsModuleOptions>({ moduleName: 'RedisPatterns' })
    .setClassMethodName('forRoot')
    .setFactoryMethodName('createRedisPatternsOptions')
    // Global by default: one Redis setup serves the whole application, like a database module.
    .setExtras({ isGlobal: true }, (definition, extras) => ({ ...definition, global: extras.isGlobal }))
    .build();

/**
 * The injection token of the options object as given to `forRoot` (without `isGlobal`) or returned by the
 * `forRootAsync` factory, before defaults and validation.
 */
export const REDIS_PATTERNS_OPTIONS: string | symbol = MODULE_OPTIONS_TOKEN;
