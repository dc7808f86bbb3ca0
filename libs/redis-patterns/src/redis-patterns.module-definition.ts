import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { RedisPatternsModuleOptions } from './redis-patterns.options';

export const {
  ConfigurableModuleClass: RedisPatternsConfigurableModule,
  MODULE_OPTIONS_TOKEN: REDIS_PATTERNS_OPTIONS,
  OPTIONS_TYPE: REDIS_PATTERNS_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: REDIS_PATTERNS_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<RedisPatternsModuleOptions>({ moduleName: 'RedisPatterns' })
  .setClassMethodName('forRoot')
  .setFactoryMethodName('createRedisPatternsOptions')
  // Global by default: one Redis setup serves the whole application, like a database module.
  .setExtras({ isGlobal: true }, (definition, extras) => ({ ...definition, global: extras.isGlobal }))
  .build();
