import { Injectable, Module } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { InjectRedis, RedisPatternsModule } from 'nestjs-redis-patterns';

@Injectable()
export class Settings {
  readonly redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  readonly queueUrl = process.env.QUEUE_REDIS_URL ?? this.redisUrl;
}

@Module({ providers: [Settings], exports: [Settings] })
export class SettingsModule {}

@Injectable()
export class Reports {
  // The ioredis client itself, for what the patterns do not cover.
  constructor(@InjectRedis() private readonly redis: Redis) {}

  keysInDatabase(): Promise<number> {
    return this.redis.dbsize();
  }
}

@Module({
  imports: [
    RedisPatternsModule.forRootAsync({
      imports: [SettingsModule],
      inject: [Settings],
      useFactory: (settings: Settings) => ({
        connection: settings.redisUrl,
        connections: { queue: settings.queueUrl }, // a named connection…
        streams: { connection: 'queue' }, // …that keeps Streams traffic off the cache's
        keyPrefix: 'orders-api',
        commandTimeoutMs: 500,
        cache: { defaultTtl: 60 },
        rateLimit: { trustProxyHops: 1 }, // one reverse proxy in front: read X-Forwarded-For once
      }),
    }),
  ],
  providers: [Reports],
})
export class AppModule {}
