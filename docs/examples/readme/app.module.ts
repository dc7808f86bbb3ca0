import { Controller, Get, Injectable, Module, Param } from '@nestjs/common';
import { Cacheable, RateLimit, RedisPatternsModule } from 'nestjs-redis-patterns';

interface Product {
  id: string;
  name: string;
}

@Injectable()
export class ProductRepository {
  // Stands in for a database: slow enough that a cache hit shows.
  async findById(id: string): Promise<Product> {
    await new Promise((resolve) => setTimeout(resolve, 50));
    return { id, name: `Product ${id}` };
  }
}

@Controller('products')
export class ProductsController {
  constructor(private readonly products: ProductRepository) {}

  @Get(':id')
  @RateLimit({ algorithm: 'fixed-window', limit: 5, windowMs: 60_000 }) // 5 a minute per client address, then 429
  @Cacheable({ ttl: 60 }) // keyed by the URL; X-Cache: MISS, then HIT for 60 s
  findOne(@Param('id') id: string): Promise<Product> {
    return this.products.findById(id);
  }
}

@Module({
  imports: [
    RedisPatternsModule.forRoot({
      connection: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', // redis://user:password@host:6379/0
      keyPrefix: 'shop',
    }),
  ],
  controllers: [ProductsController],
  providers: [ProductRepository],
})
export class AppModule {}
