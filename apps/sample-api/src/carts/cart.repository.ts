import { Injectable } from '@nestjs/common';
import type { WriteBehindChange } from 'nestjs-redis-patterns';
import { simulatedLatency } from '../common/simulated-latency';

export interface Cart {
  userId: string;
  items: Array<{ productId: number; quantity: number }>;
}

/**
 * The cart table of the sample: one upsert per batch (the latency of one query however many carts it carries), and
 * each row keeps the version of the change that wrote it, so a batch delivered twice changes nothing.
 */
@Injectable()
export class CartRepository {
  private readonly rows = new Map<string, { cart: Cart; version: string }>();
  /** Batches that reached the "database". */
  upserts = 0;

  async upsertMany(changes: ReadonlyArray<WriteBehindChange<Cart>>): Promise<void> {
    await simulatedLatency();
    this.upserts++;
    for (const { value, version } of changes) {
      const row = this.rows.get(value.userId);
      if (row && !isNewer(version, row.version)) continue;
      this.rows.set(value.userId, { cart: value, version });
    }
  }

  find(userId: string): Cart | undefined {
    return this.rows.get(userId)?.cart;
  }
}

/** Versions are `<ms>-<seq>`, increasing per key. */
function isNewer(a: string, b: string): boolean {
  const [am, as] = a.split('-').map(BigInt);
  const [bm, bs] = b.split('-').map(BigInt);
  return am > bm || (am === bm && as > bs);
}
