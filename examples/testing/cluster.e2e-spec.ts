// Testing against a Redis Cluster (three masters), for code that must hold on a cluster: keys one operation
// touches share a slot. Run by this repository's `npm test`.
import { Injectable, type INestApplicationContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { LockService, RedisPatternsModule, WithLock } from 'nestjs-redis-patterns';
import { useTestRedis } from 'nestjs-redis-patterns/testing';

@Injectable()
class Payments {
  charged = 0;

  @WithLock({ resource: (orderId: string) => `order:${orderId}`, ttlMs: 5000 })
  async charge(orderId: string): Promise<string> {
    this.charged++;
    return `charged ${orderId}`;
  }
}

describe('payments on a Redis Cluster', () => {
  const redis = useTestRedis({ topology: 'cluster' });
  let app: INestApplicationContext;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [RedisPatternsModule.forRoot({ connection: redis.connection, keyPrefix: 'payments-test' })],
      providers: [Payments],
    }).compile();
    app = await moduleRef.init();
  });

  afterAll(() => app.close());

  it('locks orders in every slot of the cluster; contention is refused', async () => {
    const payments = app.get(Payments);
    const orders = Array.from({ length: 30 }, (_, i) => `o${i}`);
    await expect(Promise.all(orders.map((id) => payments.charge(id)))).resolves.toHaveLength(30);
    const held = await app.get(LockService).tryAcquire('order:o1', { ttlMs: 5000 });
    await expect(payments.charge('o1')).rejects.toThrow(/was not acquired \(contention\)/);
    await held?.release();
    expect(payments.charged).toBe(30);
  });
});
