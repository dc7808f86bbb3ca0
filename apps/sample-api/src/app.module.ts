import { Module } from '@nestjs/common';
import { RedisPatternsModule } from '@app/redis-patterns';
import { HealthController } from './health/health.controller';

@Module({
  imports: [
    RedisPatternsModule.forRootAsync({
      useFactory: () => ({
        connection: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
        keyPrefix: process.env.REDIS_KEY_PREFIX ?? 'sample',
      }),
    }),
  ],
  controllers: [HealthController],
})
export class AppModule {}
