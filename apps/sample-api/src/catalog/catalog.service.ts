import { Injectable } from '@nestjs/common';
import { Cacheable, CacheEvict, CachePut } from 'nestjs-redis-patterns';
import { categoryTag, type Product, type ProductPatch, productTag } from './product';
import { ProductRepository } from './product.repository';

/**
 * Product reads go through the cache (cache-aside, tagged by product and by category); writes go to the
 * repository and then to the cache (write-through), evicting the category lists the product leaves and joins.
 */
@Injectable()
export class CatalogService {
  constructor(private readonly products: ProductRepository) {}

  @Cacheable({
    key: (id: number) => `product:${id}`,
    ttl: 300,
    staleTtl: 60,
    tags: (id: number) => [productTag(id)],
  })
  async findProduct(id: number): Promise<Product> {
    return this.products.findById(id);
  }

  @Cacheable({ key: (category: string) => `products:${category}`, ttl: 120, tags: (category: string) => [categoryTag(category)] })
  async listCategory(category: string): Promise<Product[]> {
    return this.products.findByCategory(category);
  }

  /**
   * Write-through. `@CacheEvict` runs first (beforeInvocation) and drops everything tagged with the product (its
   * cached HTTP answers included) and the cached lists of the category it leaves and joins; then `@CachePut` stores
   * the saved product under its key, so the next service read is a hit.
   */
  @CacheEvict({
    tags: (id: number, patch: ProductPatch, previousCategory: string) => [
      productTag(id),
      categoryTag(previousCategory),
      categoryTag(patch.category ?? previousCategory),
    ],
    beforeInvocation: true,
  })
  @CachePut({ key: (id: number) => `product:${id}`, ttl: 300, tags: (id: number) => [productTag(id)] })
  async saveProduct(id: number, patch: ProductPatch, _previousCategory: string): Promise<Product> {
    return this.products.update(id, patch);
  }
}
