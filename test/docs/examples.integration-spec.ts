// The examples of docs/*.md run as printed, on a Redis server of this spec's own: each block asserts what the page
// says the code does. The modules read REDIS_URL when they are imported, so each is imported after the server is up.
import { type INestApplication, Module, type Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Redis } from 'ioredis';
import request from 'supertest';
import { LockService, RateLimitDeniedError, SemaphoreService } from 'nestjs-redis-patterns';
import { privateServer, type RedisServerProcess, waitFor } from '../support/redis-env';

let server: RedisServerProcess;
const apps: INestApplication[] = [];

beforeAll(async () => {
  server = await privateServer();
  process.env.REDIS_URL = server.url;
});

afterAll(async () => {
  await Promise.all(apps.map((app) => app.close()));
  await server?.stop();
});

/** An example module, loaded only now that REDIS_URL names this spec's server (the modules read it on load). */
function load<T>(path: string): T {
  return require(path) as T;
}

async function start(module: Type, configure?: (app: INestApplication) => void): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({ imports: [module] }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  configure?.(app);
  await app.init();
  apps.push(app);
  return app;
}

describe('docs/caching.md', () => {
  let examples: typeof import('../../docs/examples/caching/catalog');
  let app: INestApplication;

  beforeAll(async () => {
    examples = load<typeof import('../../docs/examples/caching/catalog')>('../../docs/examples/caching/catalog');
    app = await start(examples.AppModule);
  });

  it('GET /products/1 twice is a MISS, then a HIT that does not reach the repository', async () => {
    const http = request(app.getHttpServer());
    const first = await http.get('/products/1').expect(200);
    const second = await http.get('/products/1').expect(200);
    expect([first.headers['x-cache'], second.headers['x-cache']]).toEqual(['MISS', 'HIT']);
    expect(second.body).toEqual({ id: 1, name: 'Lamp', category: 'lighting' });
    expect(app.get(examples.ProductRepository).reads).toBe(1);
  });

  it('after PUT /products/1 the next GET is a MISS with the new data, then a HIT', async () => {
    const http = request(app.getHttpServer());
    await http.get('/products/1').expect(200);
    const put = await http.put('/products/1').send({ name: 'Desk lamp' }).expect(200);
    expect(put.body).toEqual({ id: 1, name: 'Desk lamp', category: 'lighting' });
    const after = await http.get('/products/1').expect(200);
    expect(after.headers['x-cache']).toBe('MISS');
    expect(after.body.name).toBe('Desk lamp');
    expect((await http.get('/products/1').expect(200)).headers['x-cache']).toBe('HIT');
  });

  it('wrap loads once per key, and invalidateTags after the write makes the next read load the new value', async () => {
    const users = app.get(examples.UsersService);
    const repository = app.get(examples.UserRepository);
    expect(await users.find('42')).toEqual({ id: '42', name: 'Ada' });
    expect(await users.find('42')).toEqual({ id: '42', name: 'Ada' });
    const readsBefore = repository.reads;
    await users.rename('42', 'Grace');
    expect(await users.find('42')).toEqual({ id: '42', name: 'Grace' });
    expect(repository.reads).toBe(readsBefore + 2); // the rename's own read, then the reload
  });

  it('the near cache answers a repeated read from L1', async () => {
    const { AppModule, SettingsService } = load<typeof import('../../docs/examples/caching/near-cache')>(
      '../../docs/examples/caching/near-cache',
    );
    const settings = (await start(AppModule)).get(SettingsService);
    expect(await settings.load()).toEqual({ currency: 'EUR' });
    await waitFor(
      async () => (await settings.load(), settings.nearStats().hits >= 1),
      10_000,
      () => 'an L1 hit',
    );
    expect(await settings.flags()).toEqual({ checkout: true });
  });
});

describe('docs/caching.md: a cache that survives its loader', () => {
  let examples: typeof import('../../docs/examples/caching/loader-protection');
  let app: INestApplication;
  let redis: Redis;

  beforeAll(async () => {
    examples = load<typeof import('../../docs/examples/caching/loader-protection')>('../../docs/examples/caching/loader-protection');
    app = await start(examples.AppModule);
    redis = new Redis(server.url);
  });

  afterAll(() => {
    redis?.disconnect();
    delete process.env.RATES_REFRESH_TOKEN;
  });

  /** Moves a rate's entry past its fresh TTL, into its grace window, as the passing of a minute would. */
  async function expire(currency: string): Promise<void> {
    const [key] = await redis.keys(`fx:cache:*${currency}*`);
    await redis.pexpire(key, 3_600_000);
  }

  it('answers from grace (STALE) while the API fails, and without calling it again until graceRetryMs', async () => {
    const http = request(app.getHttpServer());
    const api = app.get(examples.RatesApi);
    const first = await http.get('/rates/EUR').timeout(5000).expect(200);
    expect(first.headers['x-cache']).toBe('MISS');
    await expire('EUR');
    api.down = true;
    const calls = api.calls;
    for (let i = 0; i < 2; i++) {
      const graced = await http.get('/rates/EUR').timeout(5000).expect(200);
      expect(graced.headers['x-cache']).toBe('STALE');
      expect(graced.body).toEqual(first.body);
    }
    expect(api.calls).toBe(calls + 1);
    api.down = false;
  });

  it('answers with the older rate at the soft timeout, and the slow call refreshes the entry', async () => {
    const http = request(app.getHttpServer());
    const api = app.get(examples.RatesApi);
    const first = await http.get('/rates/USD').timeout(5000).expect(200);
    await expire('USD');
    api.delayMs = 1000;
    const started = performance.now();
    const soft = await http.get('/rates/USD').timeout(5000).expect(200);
    expect(performance.now() - started).toBeLessThan(900);
    expect([soft.headers['x-cache'], soft.body]).toEqual(['STALE', first.body]);
    api.delayMs = 0;
    await waitFor(
      async () => (await http.get('/rates/USD').timeout(5000)).headers['x-cache'] === 'HIT',
      5000,
      () => 'the refreshed USD rate',
    );
  });

  it('answers 504 at the hard timeout when no rate is at hand', async () => {
    const api = app.get(examples.RatesApi);
    api.delayMs = 2500;
    try {
      const timedOut = await request(app.getHttpServer()).get('/rates/GBP').timeout(5000).expect(504);
      expect(timedOut.body).toMatchObject({ statusCode: 504, error: 'Gateway Timeout' });
    } finally {
      api.delayMs = 0;
    }
  });

  it('refreshes on an operator token only, and RatesService.refresh replaces the entry', async () => {
    process.env.RATES_REFRESH_TOKEN = 'ops-secret';
    const http = request(app.getHttpServer());
    await http.get('/rates/CHF').timeout(5000).expect(200);
    expect((await http.get('/rates/CHF').set('x-refresh-token', 'guess').timeout(5000)).headers['x-cache']).toBe('HIT');
    const forced = await http.get('/rates/CHF').set('x-refresh-token', 'ops-secret').timeout(5000).expect(200);
    expect(forced.headers['x-cache']).toBe('MISS');
    const rates = app.get(examples.RatesService);
    const refreshed = await rates.refresh('CHF');
    expect(await rates.rate('CHF')).toEqual({ value: refreshed, status: 'hit' });
  });
});

describe('docs/caching.md: write-behind', () => {
  it('saves a cart in the cache at once, and in the database on the next flush, the newest version once', async () => {
    const examples = load<typeof import('../../docs/examples/caching/write-behind')>('../../docs/examples/caching/write-behind');
    const app = await start(examples.AppModule);
    const carts = app.get(examples.CartsService);
    const database = app.get(examples.CartRepository);
    await carts.save('ada', { items: ['lamp'] });
    await carts.save('ada', { items: ['lamp', 'desk'] });
    expect(await carts.find('ada')).toEqual({ items: ['lamp', 'desk'] });
    await waitFor(
      () => database.rows.has('cart:ada'),
      5000,
      () => 'the flush',
    );
    expect(database.rows.get('cart:ada')?.cart).toEqual({ items: ['lamp', 'desk'] });
  });
});

describe('docs/rate-limiting.md', () => {
  let examples: typeof import('../../docs/examples/rate-limiting/search');
  let app: INestApplication;

  beforeAll(async () => {
    examples = load<typeof import('../../docs/examples/rate-limiting/search')>('../../docs/examples/rate-limiting/search');
    app = await start(examples.AppModule);
  });

  it('GET /search allows 20 a second per client, then answers 429 with Retry-After', async () => {
    const http = request(app.getHttpServer());
    const responses = await Promise.all(Array.from({ length: 30 }, () => http.get('/search').timeout(10_000)));
    const allowed = responses.filter((r) => r.status === 200);
    const denied = responses.filter((r) => r.status === 429);
    expect(allowed.length + denied.length).toBe(30);
    expect(allowed.length).toBeGreaterThan(0);
    expect(allowed.length).toBeLessThanOrEqual(20);
    expect(denied.length).toBeGreaterThanOrEqual(10);
    expect(Number(denied[0].headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  it('@SkipRateLimit() leaves /search/health unlimited', async () => {
    const http = request(app.getHttpServer());
    const statuses = await Promise.all(Array.from({ length: 30 }, () => http.get('/search/health').timeout(10_000)));
    expect(statuses.map((r) => r.status)).toEqual(Array(30).fill(200));
  });

  it('on a provider, the sixth SMS to one phone throws RateLimitDeniedError', async () => {
    const sms = app.get(examples.SmsSender);
    for (let i = 0; i < 5; i++) await sms.send('+15550100', `code ${i}`);
    await expect(sms.send('+15550100', 'code 5')).rejects.toBeInstanceOf(RateLimitDeniedError);
    await sms.send('+15550199', 'another phone, another budget');
    expect(sms.sent).toHaveLength(6);
  });

  it('login attempts count one budget per account however it is typed', async () => {
    const login = app.get(examples.LoginService);
    for (const email of ['Ada@Example.com', 'ada@example.com ', 'ADA@EXAMPLE.COM', 'ada@example.com', ' Ada@example.com']) {
      await login.attempt(email);
    }
    await expect(login.attempt('ada@EXAMPLE.com')).rejects.toThrow(/^retry in \d+ ms$/);
  });
});

describe('docs/locks.md and docs/semaphores-and-read-write-locks.md', () => {
  let app: INestApplication;
  let billing: import('../../docs/examples/locks/billing').Billing;
  let exports: import('../../docs/examples/semaphores-and-read-write-locks/exports').Exports;
  let catalog: import('../../docs/examples/semaphores-and-read-write-locks/catalog').Catalog;

  beforeAll(async () => {
    const locks = load<typeof import('../../docs/examples/locks/billing')>('../../docs/examples/locks/billing');
    const semaphores = load<typeof import('../../docs/examples/semaphores-and-read-write-locks/exports')>(
      '../../docs/examples/semaphores-and-read-write-locks/exports',
    );
    const readWrite = load<typeof import('../../docs/examples/semaphores-and-read-write-locks/catalog')>(
      '../../docs/examples/semaphores-and-read-write-locks/catalog',
    );
    @Module({ imports: [locks.AppModule], providers: [semaphores.Exports, readWrite.Catalog] })
    class LocksApp {}
    app = await start(LocksApp);
    billing = app.get(locks.Billing);
    exports = app.get(semaphores.Exports);
    catalog = app.get(readWrite.Catalog);
  });

  it('settle and rebuild write with increasing fencing tokens; a stale token would be refused', async () => {
    await billing.settle('inv-1');
    await billing.settle('inv-1'); // a later holder: a higher token, accepted
    await expect(billing.rebuild(['inv-1', 'inv-2'])).resolves.toBe('done');
  });

  it('dailyReport returns false while another instance holds the lock, true once it is free', async () => {
    const other = await app.get(LockService).tryAcquire('daily-report', { ttlMs: 10_000 });
    expect(other).not.toBeNull();
    await expect(billing.dailyReport()).resolves.toBe(false);
    await other!.release();
    await expect(billing.dailyReport()).resolves.toBe(true);
  });

  it('@WithPermit renders every job (at most 3 at once), and exportTenant hands out increasing fencing tokens', async () => {
    await Promise.all(['a', 'b', 'c', 'd', 'e'].map((job) => exports.render(job)));
    expect([...exports.rendered].sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
    const first = await exports.exportTenant('acme');
    const second = await exports.exportTenant('acme');
    expect(second).toBeGreaterThan(first);
  });

  it('tryWarmUp returns false while two instances hold the semaphore, true once one lets go', async () => {
    const semaphores = app.get(SemaphoreService);
    const held = await Promise.all([1, 2].map(() => semaphores.tryAcquire('warm-up', 2, { ttlMs: 10_000 })));
    expect(held.every((permit) => permit !== null)).toBe(true);
    await expect(exports.tryWarmUp()).resolves.toBe(false);
    await held[0]!.release();
    await expect(exports.tryWarmUp()).resolves.toBe(true);
    await held[1]!.release();
  });

  it('the read-write lock: reload writes under a fencing token, price reads what it wrote', async () => {
    await expect(catalog.price('lamp')).resolves.toBe(0);
    await catalog.reload();
    expect(catalog.loadedUnderToken).toBeGreaterThan(0);
    await expect(catalog.price('lamp')).resolves.toBe(42);
  });
});

describe('docs/idempotency.md', () => {
  let examples: typeof import('../../docs/examples/idempotency/payments');
  let app: INestApplication;

  beforeAll(async () => {
    examples = load<typeof import('../../docs/examples/idempotency/payments')>('../../docs/examples/idempotency/payments');
    // Stands in for the application's authentication: the caller named by a header.
    app = await start(examples.AppModule, (nest) =>
      nest.use((req: { headers: Record<string, string | undefined>; user?: { id: string } }, _res: unknown, next: () => void) => {
        if (req.headers['x-user']) req.user = { id: req.headers['x-user'] };
        next();
      }),
    );
  });

  it('a retried POST /payments gets the same status and body, and the payment is charged once', async () => {
    const http = request(app.getHttpServer());
    const pay = () => http.post('/payments').set('Idempotency-Key', 'order-7').set('X-User', 'ada').send({ amount: 12 }).timeout(10_000);
    const first = await pay();
    const retry = await pay();
    expect(first.status).toBe(201);
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    expect(first.body).toEqual({ paymentId: 1, amount: 12 });
    expect(app.get(examples.PaymentsService).charges).toBe(1);
  });

  it('a POST without a key is 400 (required: true); a key without a user is 400, not a crash', async () => {
    const http = request(app.getHttpServer());
    await http.post('/payments').set('X-User', 'ada').send({ amount: 1 }).expect(400);
    await http.post('/payments').set('Idempotency-Key', 'order-8').send({ amount: 1 }).expect(400);
    expect(app.get(examples.PaymentsService).charges).toBe(1);
  });

  it('credit and onPaymentEvent run once per key', async () => {
    const ledger = app.get(examples.LedgerService);
    expect(await ledger.credit({ id: 'e1', amount: 5 })).toBe(1);
    expect(await ledger.credit({ id: 'e1', amount: 5 })).toBe(1);
    expect(await ledger.onPaymentEvent({ id: 'evt-1', order: 'o-1' })).toBe('shipped o-1');
    expect(await ledger.onPaymentEvent({ id: 'evt-1', order: 'o-1' })).toBe('shipped o-1');
    expect(ledger.fulfilled).toEqual(['o-1']);
  });
});

describe('docs/messaging.md', () => {
  it('placing an order bills it once through the stream group and tells the dashboard over pub/sub', async () => {
    const examples = load<typeof import('../../docs/examples/messaging/orders')>('../../docs/examples/messaging/orders');
    const app = await start(examples.AppModule);
    await app.get(examples.Orders).place('42');
    const payments = app.get(examples.Payments);
    const dashboard = app.get(examples.Dashboard);
    await waitFor(
      () => payments.charged.size === 1 && dashboard.seen.length === 1,
      10_000,
      () => 'the bill and the dashboard event',
    );
    expect([...payments.charged.values()]).toEqual(['42']);
    expect(dashboard.seen).toEqual(['orders:42 placed']);
  });
});

describe('docs/leader-election.md', () => {
  it('the only instance leads, and its job publishes under its term', async () => {
    const examples = load<typeof import('../../docs/examples/leader-election/reports-job')>(
      '../../docs/examples/leader-election/reports-job',
    );
    const app = await start(examples.AppModule);
    await app.get(examples.ReportsJob).publish();
    expect(app.get(examples.ReportStore).published).toEqual(['daily']);
  });
});
