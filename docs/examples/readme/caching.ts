import { Injectable } from '@nestjs/common';
import { Cacheable, CacheService } from 'nestjs-redis-patterns';

interface Product {
  id: number;
  name: string;
}

@Injectable()
export class ProductRepository {
  private readonly names = new Map<number, string>();
  async findById(id: number): Promise<Product> {
    return { id, name: this.names.get(id) ?? `Product ${id}` };
  }
  async rename(id: number, name: string): Promise<void> {
    this.names.set(id, name);
  }
}

// #region usage
@Injectable()
export class CatalogService {
  constructor(
    private readonly products: ProductRepository,
    private readonly cache: CacheService,
  ) {}

  // On a miss, one loader call per key across concurrent callers and instances; served stale for 60 s while refreshing.
  @Cacheable({ key: (id: number) => `product:${id}`, ttl: 300, staleTtl: 60, tags: (id: number) => [`product:${id}`] })
  findProduct(id: number): Promise<Product> {
    return this.products.findById(id);
  }

  async rename(id: number, name: string): Promise<void> {
    await this.products.rename(id, name);
    await this.cache.invalidateTags(`product:${id}`); // every entry tagged with this product
  }
}
// #endregion usage
