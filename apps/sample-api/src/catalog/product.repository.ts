import { Injectable, NotFoundException } from '@nestjs/common';
import { simulatedLatency } from '../common/simulated-latency';
import { CATEGORIES, type Product, type ProductPatch } from './product';

/**
 * The product table of the sample: an in-process Map with simulated latency on every call (see
 * simulated-latency.ts). Seeded with products 1–120 so every endpoint works on a fresh start.
 */
@Injectable()
export class ProductRepository {
  private readonly rows = new Map<number, Product>();
  /** Calls that reached the "database" — the e2e tests use it to prove a cache hit skipped it. */
  reads = 0;

  constructor() {
    for (let id = 1; id <= 120; id++) {
      this.rows.set(id, {
        id,
        name: `Product ${id}`,
        category: CATEGORIES[id % CATEGORIES.length],
        priceCents: 500 + ((id * 137) % 9500),
        updatedAt: new Date(0).toISOString(),
      });
    }
  }

  async findById(id: number): Promise<Product> {
    await simulatedLatency();
    this.reads++;
    const row = this.rows.get(id);
    if (!row) throw new NotFoundException(`Product ${id} does not exist`);
    return { ...row };
  }

  async findByCategory(category: string): Promise<Product[]> {
    await simulatedLatency();
    this.reads++;
    return [...this.rows.values()].filter((p) => p.category === category).map((p) => ({ ...p }));
  }

  async update(id: number, patch: ProductPatch): Promise<Product> {
    await simulatedLatency();
    const row = this.rows.get(id);
    if (!row) throw new NotFoundException(`Product ${id} does not exist`);
    const updated = { ...row, ...patch, updatedAt: new Date().toISOString() };
    this.rows.set(id, updated);
    return { ...updated };
  }
}
