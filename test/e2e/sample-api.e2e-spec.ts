import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { AppModule } from '../../apps/sample-api/src/app.module';
import { CartRepository } from '../../apps/sample-api/src/carts/cart.repository';
import { ProductRepository } from '../../apps/sample-api/src/catalog/product.repository';
import { SHIPPING_PARTNER_PERMITS, ShippingPartner } from '../../apps/sample-api/src/orders/shipping-partner';
import { httpAdapterFor, SAMPLE_ADAPTERS } from '../../apps/sample-api/src/http-platform';
import { keysWithoutTtl, rawClient, uniquePrefix, waitFor } from '../support/redis-env';

describe.each(SAMPLE_ADAPTERS)('sample API over HTTP (%s)', (adapterName) => {
  let app: INestApplication;
  let http: ReturnType<typeof request>;
  const prefix = uniquePrefix(`sample-${adapterName}`);
  const admin = rawClient('standalone');

  beforeAll(async () => {
    process.env.REDIS_URL = process.env.REDIS_URL_STANDALONE;
    process.env.REDIS_KEY_PREFIX = prefix;
    process.env.SAMPLE_DB_LATENCY_MS = '5';
    process.env.SAMPLE_SNAPSHOT_EVERY_MS = '200';
    const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
    const adapter = httpAdapterFor(adapterName);
    app = adapter ? moduleRef.createNestApplication(adapter) : moduleRef.createNestApplication();
    await app.init();
    // Fastify routes are ready once its plugins have loaded.
    await (app.getHttpAdapter().getInstance() as { ready?: () => Promise<unknown> }).ready?.();
    http = request(app.getHttpServer());
  });

  afterAll(async () => {
    await app?.close();
    admin.disconnect();
  });

  it('GET /health reports the connection up', async () => {
    const response = await http.get('/health').expect(200);
    expect(JSON.stringify(response.body)).toContain('"up"');
  });

  it('GET /products/:id is a MISS, then a HIT that skips the repository', async () => {
    const repository = app.get(ProductRepository);
    const first = await http.get('/products/7').expect(200);
    expect(first.headers['x-cache']).toBe('MISS');
    const reads = repository.reads;
    const second = await http.get('/products/7').expect(200);
    expect(second.headers['x-cache']).toBe('HIT');
    expect(second.body).toEqual(first.body);
    expect(repository.reads).toBe(reads);
  });

  it('PUT /products/:id writes through and invalidates the product and its category lists', async () => {
    const before = (await http.get('/products/9').expect(200)).body as { category: string; name: string };
    await http.get(`/products?category=${before.category}`).expect(200);
    expect((await http.get(`/products?category=${before.category}`)).headers['x-cache']).toBe('HIT');
    const updated = await http.put('/products/9').send({ name: 'Renamed nine', category: 'tools' }).expect(200);
    expect(updated.body.name).toBe('Renamed nine');
    const after = await http.get('/products/9').expect(200);
    expect(after.headers['x-cache']).toBe('MISS');
    expect(after.body.name).toBe('Renamed nine');
    const oldList = await http.get(`/products?category=${before.category}`).expect(200);
    expect(oldList.headers['x-cache']).toBe('MISS');
    expect((oldList.body as Array<{ id: number }>).some((p) => p.id === 9)).toBe(before.category === 'tools');
    const newList = await http.get('/products?category=tools').expect(200);
    expect((newList.body as Array<{ id: number }>).some((p) => p.id === 9)).toBe(true);
  });

  it('rejects bad product input with 400, never 5xx', async () => {
    await http.put('/products/3').send({ priceCents: -1 }).expect(400);
    await http.get('/products?category=nope').expect(400);
    await http.get('/products/abc').expect(400);
    await http.get('/products/99999').expect(404);
  });

  it('POST /auth/login creates a session that GET /me reads; a wrong password is 401', async () => {
    await http.post('/auth/login').send({ username: 'bob', password: 'wrong' }).expect(401);
    const login = await http.post('/auth/login').send({ username: 'alice', password: 'demo-password' }).expect(200);
    expect(login.headers['ratelimit-policy']).toBeDefined();
    const me = await http.get('/me').set('Authorization', `Bearer ${login.body.sessionId}`).expect(200);
    expect(me.body.username).toBe('alice');
    await http.get('/me').expect(401);
    await http.get('/me').set('Authorization', 'Bearer nope').expect(401);
  });

  it('limits login attempts per username to 5 a minute: 429 with Retry-After and RateLimit headers', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      const response = await http.post('/auth/login').send({ username: 'carol', password: 'wrong' });
      statuses.push(response.status);
      if (response.status === 429) {
        expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
        expect(response.headers['ratelimit']).toBeDefined();
      }
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
  });

  it('POST /orders/:id/pay: concurrent payments charge once; others get 409 or an idempotent 200', async () => {
    const responses = await Promise.all(Array.from({ length: 8 }, () => http.post('/orders/42/pay')));
    const statuses = responses.map((r) => r.status);
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    const charged = responses.filter((r) => r.status === 200 && r.body.alreadyPaid === false);
    expect(charged).toHaveLength(1);
    expect(typeof charged[0].body.fencingToken).toBe('number');
    for (const r of responses.filter((x) => x.status === 409)) expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
    const again = await http.post('/orders/42/pay').expect(200);
    expect(again.body.alreadyPaid).toBe(true);
    await http.post('/orders/99999/pay').expect(404);
  });

  it('POST /orders/:id/pay with an Idempotency-Key replays the first answer; the key on another order is 422', async () => {
    const key = `"${prefix}-payment-1"`;
    const first = await http.post('/orders/7/pay').set('Idempotency-Key', key).expect(200);
    expect(first.body).toMatchObject({ id: 7, status: 'paid', alreadyPaid: false });
    const retry = await http.post('/orders/7/pay').set('Idempotency-Key', key).expect(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    // The replay is the first answer, not a second run (which would say alreadyPaid: true).
    expect(retry.body).toEqual(first.body);
    await http.post('/orders/8/pay').set('Idempotency-Key', key).expect(422);
  });

  it('GET /orders/:id/shipping-quote: never more than two partner calls at once (a semaphore)', async () => {
    const partner = app.get(ShippingPartner);
    const responses = await Promise.all(Array.from({ length: 10 }, () => http.get('/orders/3/shipping-quote')));
    expect(responses.every((r) => r.status === 200 || r.status === 409)).toBe(true);
    expect(responses.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(2);
    expect(responses.find((r) => r.status === 200)!.body).toMatchObject({ orderId: 3, priceCents: 799 });
    expect(partner.peakInFlight).toBeGreaterThanOrEqual(1);
    expect(partner.peakInFlight).toBeLessThanOrEqual(SHIPPING_PARTNER_PERMITS);
  });

  it("the leaderboard snapshot job runs on the elected leader, with its term's fencing token", async () => {
    await http.post('/scores/snapper').send({ points: 7 });
    let status: { leader: boolean; runsHere: number; latest: Array<{ fencingToken: string; top: unknown[] }> } | undefined;
    await waitFor(async () => {
      status = (await http.get('/stats/leaderboard-snapshots').expect(200)).body;
      // A snapshot taken after the score was posted (earlier ones may predate it).
      return status!.leader && status!.runsHere > 0 && status!.latest.some((snapshot) => snapshot.top.length > 0);
    }, 10_000);
    expect(Number(status!.latest[0].fencingToken)).toBeGreaterThan(0);
  });

  it('POST /scores/:player and GET /leaderboard rank players by score', async () => {
    await http.post('/scores/ann').send({ points: 30 }).expect(201);
    await http.post('/scores/ben').send({ points: 50 }).expect(201);
    const ann = await http.post('/scores/ann').send({ points: 40 }).expect(201);
    expect(ann.body).toMatchObject({ player: 'ann', score: 70, rank: 1 });
    const top = await http.get('/leaderboard?limit=2').expect(200);
    expect(top.body).toEqual([
      { member: 'ann', score: 70, rank: 1 },
      { member: 'ben', score: 50, rank: 2 },
    ]);
    await http.post('/scores/ann').send({ points: 'many' }).expect(400);
  });

  it('POST /events is consumed by the stream consumer: unique visitors grow', async () => {
    for (const visitor of ['v1', 'v2', 'v3', 'v1']) await http.post('/events').send({ type: 'page_view', visitor }).expect(202);
    await waitFor(
      async () => (await http.get('/stats/unique-visitors')).body.today === 3,
      5000,
      () => 'three unique visitors counted',
    );
    await http.post('/events').send({ type: 'NOT OK' }).expect(400);
  });

  it('GET /events/stream pushes the notification a purchase publishes over pub/sub (SSE)', async () => {
    await app.listen(0, '127.0.0.1');
    const controller = new AbortController();
    const response = await fetch(`${await app.getUrl()}/events/stream`, { signal: controller.signal });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const reader = response.body!.getReader();
    let received = '';
    try {
      await http.post('/events').send({ type: 'purchase', visitor: 'sse-buyer' }).expect(202);
      const deadline = Date.now() + 5000;
      while (!received.includes('sse-buyer made a purchase') && Date.now() < deadline) {
        const { value, done } = await reader.read();
        if (done) break;
        received += Buffer.from(value).toString();
      }
    } finally {
      controller.abort();
    }
    expect(received).toContain('event: notification');
    expect(received).toContain('sse-buyer made a purchase');
  });

  it('PUT /carts/:userId answers from Redis at once; the database gets the last cart on the next flush', async () => {
    const carts = app.get(CartRepository);
    await http
      .put('/carts/e2e-buyer')
      .send({ items: [{ productId: 1, quantity: 1 }] })
      .expect(200);
    const last = await http
      .put('/carts/e2e-buyer')
      .send({ items: [{ productId: 1, quantity: 3 }] })
      .expect(200);
    expect(last.body).toEqual({ userId: 'e2e-buyer', items: [{ productId: 1, quantity: 3 }] });
    expect((await http.get('/carts/e2e-buyer').expect(200)).body).toEqual(last.body);
    await waitFor(
      () => carts.find('e2e-buyer')?.items[0].quantity === 3,
      5000,
      () => 'the cart in the database',
    );
    await http.put('/carts/BAD!').send({ items: [] }).expect(400);
  });

  it('leaves no key of its own without a TTL, except streams and pending write-behind changes', async () => {
    const documented = (key: string) =>
      key.startsWith(`${prefix}:stream:`) || key.endsWith(':fence') || key.startsWith(`${prefix}:write-behind:`) || key.endsWith(':wb');
    const offenders = await keysWithoutTtl(admin, `${prefix}:*`, documented);
    expect(offenders).toEqual([]);
  });
});
