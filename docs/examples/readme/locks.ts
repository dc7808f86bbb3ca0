import { Injectable } from '@nestjs/common';
import { LockService, WithLock } from 'nestjs-redis-patterns';

@Injectable()
export class OrderRepository {
  private readonly lastToken = new Map<number, number>();
  // Refuses a write whose fencing token is older than the last one it accepted for this order.
  async markPaid(id: number, fencingToken: number): Promise<void> {
    if ((this.lastToken.get(id) ?? -1) > fencingToken) throw new Error(`stale lock holder for order ${id}`);
    this.lastToken.set(id, fencingToken);
  }
}

// #region usage
@Injectable()
export class OrdersService {
  constructor(
    private readonly orders: OrderRepository,
    private readonly locks: LockService,
  ) {}

  // Never runs without the lock; on HTTP, 409 with Retry-After while another instance holds it.
  @WithLock({ resource: (id: number) => `order:${id}`, ttlMs: 5_000 })
  async pay(id: number): Promise<void> {
    const { fencingToken } = this.locks.current()!;
    await this.orders.markPaid(id, fencingToken);
  }

  rebuild(): Promise<string> {
    return this.locks.using(
      'rebuild',
      async (signal) => {
        signal.throwIfAborted(); // aborted with LockLostError as soon as an extension fails
        return 'done';
      },
      { ttlMs: 15_000 },
    );
  }
}
// #endregion usage
