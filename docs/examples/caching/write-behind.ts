import { Injectable, Module } from '@nestjs/common';
import { RedisPatternsModule, type WriteBehindChange, WriteBehindService, WriteBehindWriter } from 'nestjs-redis-patterns';

export interface Cart {
  items: string[];
}

/** Stands in for your database: an upsert that keeps a row's newest version. */
@Injectable()
export class CartRepository {
  readonly rows = new Map<string, { cart: Cart; version: string }>();
  upserts = 0;

  async upsertMany(changes: ReadonlyArray<WriteBehindChange<Cart>>): Promise<void> {
    this.upserts++;
    for (const { key, value, version } of changes) {
      const row = this.rows.get(key);
      // Versions grow per key: a batch delivered twice (an instance stopped mid-flush) changes nothing.
      if (row && !isNewer(version, row.version)) continue;
      this.rows.set(key, { cart: value, version });
    }
  }
}

// #region usage
@Injectable()
export class CartsService {
  constructor(private readonly writeBehind: WriteBehindService) {}

  // Resolves once the cart is in the cache and its change is recorded; the database gets it within `delayMs`.
  save(userId: string, cart: Cart): Promise<void> {
    return this.writeBehind.write('carts', `cart:${userId}`, cart, { ttlMs: 3_600_000 });
  }

  // Read-your-writes: the cache answers before the flush.
  find(userId: string): Promise<Cart | undefined> {
    return this.writeBehind.get<Cart>(`cart:${userId}`);
  }
}

@Injectable()
export class CartsWriter {
  constructor(private readonly carts: CartRepository) {}

  // Batches of the last value of each key since its previous flush, in write order per key.
  @WriteBehindWriter('carts')
  save(changes: ReadonlyArray<WriteBehindChange<Cart>>): Promise<void> {
    return this.carts.upsertMany(changes);
  }
}
// #endregion usage

function isNewer(a: string, b: string): boolean {
  const [am, as] = a.split('-').map(BigInt);
  const [bm, bs] = b.split('-').map(BigInt);
  return am > bm || (am === bm && as > bs);
}

@Module({
  imports: [
    RedisPatternsModule.forRoot({
      connection: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      keyPrefix: 'shop',
      writeBehind: { delayMs: 200, batchSize: 500, maxAttempts: 5 },
    }),
  ],
  providers: [CartRepository, CartsService, CartsWriter],
})
export class AppModule {}
