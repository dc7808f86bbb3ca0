import { Injectable } from '@nestjs/common';
import { LockService, WithLock } from 'nestjs-redis-patterns';
import { type Order, OrderRepository } from './order.repository';

/**
 * Paying an order runs under a lock per order, so two concurrent payments never both charge. The lock alone is not
 * enough (a holder can pause past its TTL): the write carries the lock's fencing token and the repository refuses a
 * token older than the last one it accepted.
 */
@Injectable()
export class OrdersService {
  constructor(
    private readonly orders: OrderRepository,
    private readonly locks: LockService,
  ) {}

  /** Contention answers 409 with Retry-After on HTTP (LockNotAcquiredError); paying a paid order is a no-op. */
  @WithLock({ resource: (id: number) => `order:${id}`, ttlMs: 5000 })
  async pay(id: number): Promise<Order & { alreadyPaid: boolean }> {
    const order = await this.orders.findById(id);
    if (order.status === 'paid') return { ...order, alreadyPaid: true };
    const lock = this.locks.current();
    if (!lock) throw new Error('OrdersService.pay runs under @WithLock');
    const paid = await this.orders.markPaid(id, lock.fencingToken);
    return { ...paid, alreadyPaid: false };
  }
}
