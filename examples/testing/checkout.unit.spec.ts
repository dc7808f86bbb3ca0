// A unit test of a service with @Cacheable, @RateLimit and @WithLock: the module in memory, no Redis server and no
// mocks. The decorators behave as they do on Redis, within this one process. Run by this repository's `npm test`.
import { Injectable, type INestApplicationContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import {
  Cacheable,
  LockNotAcquiredError,
  LockService,
  RateLimit,
  RateLimitDeniedError,
  RedisPatternsModule,
  WithLock,
} from 'nestjs-redis-patterns';
import { clearKeys } from 'nestjs-redis-patterns/testing';

@Injectable()
class CheckoutService {
  priceLookups = 0;
  charges = 0;

  @Cacheable({ key: (sku: string) => `price:${sku}`, ttl: 60 })
  async price(sku: string): Promise<number> {
    this.priceLookups++;
    return sku.length * 100;
  }

  @RateLimit({ algorithm: 'fixed-window', limit: 2, windowMs: 60_000, key: (user: string) => `quote:${user}` })
  async quote(user: string): Promise<string> {
    return `quote for ${user}`;
  }

  @WithLock({ resource: (order: string) => `charge:${order}`, ttlMs: 5_000 })
  async charge(order: string): Promise<string> {
    this.charges++;
    return `charged ${order}`;
  }
}

describe('CheckoutService (unit, in memory)', () => {
  let app: INestApplicationContext;
  let checkout: CheckoutService;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [RedisPatternsModule.forRoot({ connection: 'memory://', keyPrefix: 'checkout-test' })],
      providers: [CheckoutService],
    }).compile();
    app = await moduleRef.init();
    checkout = app.get(CheckoutService);
  });

  afterEach(() => clearKeys(app)); // the in-memory keys, as on Redis
  afterAll(() => app.close());

  it('caches the price: the second call does not look it up again', async () => {
    expect(await checkout.price('abc')).toBe(300);
    expect(await checkout.price('abc')).toBe(300);
    expect(checkout.priceLookups).toBe(1);
  });

  it('limits quotes per user', async () => {
    await checkout.quote('ada');
    await checkout.quote('ada');
    await expect(checkout.quote('ada')).rejects.toBeInstanceOf(RateLimitDeniedError);
    expect(await checkout.quote('bob')).toBe('quote for bob');
  });

  it('never charges an order while its lock is held elsewhere', async () => {
    const held = (await app.get(LockService).tryAcquire('charge:42', { ttlMs: 5_000 }))!;
    await expect(checkout.charge('42')).rejects.toBeInstanceOf(LockNotAcquiredError);
    expect(checkout.charges).toBe(0);
    await held.release();
    expect(await checkout.charge('42')).toBe('charged 42');
  });
});
