// The code of docs/migrating-from-cache-manager.md: what an application has with @nestjs/cache-manager and
// @keyv/redis, the one-line route (its store replaced), and the full switch. `npm test` type-checks this file;
// test/integration/cache/keyv-store.integration-spec.ts runs the one-line route under CacheInterceptor.
import KeyvRedis from '@keyv/redis';
import { CACHE_MANAGER, CacheInterceptor, CacheKey, CacheModule, CacheTTL } from '@nestjs/cache-manager';
import { Controller, Get, Inject, Injectable, Module, Param, UseInterceptors } from '@nestjs/common';
import type { Cache } from 'cache-manager';
import { Keyv } from 'keyv';
import { Cacheable, CacheEvict, CacheService, RedisPatternsModule } from 'nestjs-redis-patterns';
import { RedisPatternsKeyvStore } from 'nestjs-redis-patterns/adapters';

interface Product {
  id: string;
  name: string;
}

// ── Before: CacheInterceptor and the cache manager on Keyv + @keyv/redis ──────────────────────────────────────────
@Controller('products')
export class ProductsControllerBefore {
  constructor(@Inject(CACHE_MANAGER) private readonly cache: Cache) {}

  @Get('featured')
  @UseInterceptors(CacheInterceptor)
  @CacheKey('featured')
  @CacheTTL(60_000) // milliseconds
  featured(): Product[] {
    return [];
  }

  @Get(':id')
  async product(@Param('id') id: string): Promise<Product> {
    return this.cache.wrap(`product:${id}`, async () => ({ id, name: 'Lamp' }), 300_000);
  }
}

@Module({
  // `as never`: keyv ships separate CommonJS and ES module typings, and cache-manager's options name the other one.
  imports: [
    // #region before
    CacheModule.register({ stores: [new Keyv({ store: new KeyvRedis(process.env.REDIS_URL) }) as never] }),
    // #endregion before
  ],
  controllers: [ProductsControllerBefore],
})
export class AppModuleBefore {}

// ── The one-line route: same interceptor and cache manager, this module's store ──────────────────────────────────
@Module({
  imports: [
    // #region after
    RedisPatternsModule.forRoot({ connection: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' }),
    CacheModule.registerAsync({
      inject: [CacheService],
      useFactory: (cache: CacheService) => ({
        stores: [new Keyv({ store: new RedisPatternsKeyvStore(cache), serialize: undefined, deserialize: undefined }) as never], // the one line
      }),
    }),
    // #endregion after
  ],
  controllers: [ProductsControllerBefore],
})
export class AppModuleWithStore {}

// ── The full switch: @Cacheable and CacheService (TTLs in seconds) ───────────────────────────────────────────────
@Injectable()
export class ProductsService {
  constructor(private readonly cache: CacheService) {}

  // cache.wrap(key, fn, ttlMs) → cache.wrap(key, fn, { ttl: seconds }), with stampede control across instances.
  product(id: string): Promise<Product> {
    return this.cache.wrap(`product:${id}`, async () => ({ id, name: 'Lamp' }), { ttl: 300, tags: [`product:${id}`] });
  }

  @CacheEvict({ tags: (id: string) => [`product:${id}`] })
  async rename(id: string, name: string): Promise<Product> {
    return { id, name };
  }
}

@Controller('products')
export class ProductsController {
  constructor(private readonly products: ProductsService) {}

  @Get('featured')
  @Cacheable({ key: 'featured', ttl: 60, staleTtl: 30 })
  featured(): Product[] {
    return [];
  }

  @Get(':id')
  product(@Param('id') id: string): Promise<Product> {
    return this.products.product(id);
  }
}

@Module({
  imports: [RedisPatternsModule.forRoot({ connection: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', cache: { defaultTtl: 60 } })],
  controllers: [ProductsController],
  providers: [ProductsService],
})
export class AppModule {}
