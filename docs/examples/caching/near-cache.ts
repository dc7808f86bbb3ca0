import { Injectable, Module } from '@nestjs/common';
import { Cacheable, CacheService, RedisPatternsModule } from 'nestjs-redis-patterns';

export interface Settings {
  currency: string;
}

/** Stands in for your database. */
@Injectable()
export class SettingsRepository {
  async load(): Promise<Settings> {
    return { currency: 'EUR' };
  }

  async flags(): Promise<Record<string, boolean>> {
    return { checkout: true };
  }
}

@Injectable()
export class SettingsService {
  constructor(
    private readonly repository: SettingsRepository,
    private readonly cache: CacheService,
  ) {}

  // Per method, whatever the module default (true starts the invalidation listener even when `enabled` is false):
  @Cacheable({ key: 'settings', ttl: 300, tags: ['settings'], nearCache: true })
  async load(): Promise<Settings> {
    return this.repository.load();
  }

  // Per call:
  flags(): Promise<Record<string, boolean>> {
    return this.cache.wrap('flags', () => this.repository.flags(), { ttl: 30, nearCache: true });
  }

  nearStats() {
    return this.cache.nearStats(); // { live, entries, bytes, hits, misses, evictions, expirations, invalidations, clears, discardedFills }
  }
}

@Module({
  imports: [
    RedisPatternsModule.forRoot({
      connection: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      keyPrefix: 'shop',
      // every CacheService.get/wrap and every @Cacheable reads through L1:
      cache: { defaultTtl: 60, nearCache: { enabled: true, maxEntries: 10_000, maxBytes: 32 * 1024 * 1024 } },
    }),
  ],
  providers: [SettingsService, SettingsRepository],
})
export class AppModule {}
