import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { RedisPatternsModuleOptions } from './redis-patterns.options';

/**
 * Built by Nest's ConfigurableModuleBuilder: the base class of `RedisPatternsModule` (`forRoot` / `forRootAsync`), the
 * types of their options, and the injection token of the options object.
 */
export const {
  ConfigurableModuleClass: RedisPatternsConfigurableModule,
  MODULE_OPTIONS_TOKEN,
  OPTIONS_TYPE: REDIS_PATTERNS_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: REDIS_PATTERNS_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<RedisPatternsModuleOptions>({ moduleName: 'RedisPatterns' })
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
