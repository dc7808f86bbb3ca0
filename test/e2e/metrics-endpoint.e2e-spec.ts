import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { AppModule } from '../../apps/sample-api/src/app.module';
import { httpAdapterFor, SAMPLE_ADAPTERS } from '../../apps/sample-api/src/http-platform';
import { uniquePrefix, waitFor } from '../support/redis-env';

/** One line of the Prometheus text format: `name{label="value",…} value`. */
interface PrometheusSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

function parsePrometheus(text: string): PrometheusSample[] {
  const samples: PrometheusSample[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)$/.exec(line);
    if (!match || line.startsWith('#')) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[key] = value;
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}

/** The sum of the samples named `name` whose labels include `labels`. */
function total(samples: PrometheusSample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([key, value]) => s.labels[key] === value))
    .reduce((sum, s) => sum + s.value, 0);
}

/** The series this spec asserts on, by the names the Prometheus exporter gives the library's instruments. */
const SERIES = {
  cacheHit: ['redis_patterns_cache_requests_total', { result: 'hit' }],
  cacheMiss: ['redis_patterns_cache_requests_total', { result: 'miss' }],
  byUsernameAllowed: ['redis_patterns_rate_limit_decisions_total', { limiter: 'login-by-username', outcome: 'allowed' }],
  byUsernameDenied: ['redis_patterns_rate_limit_decisions_total', { limiter: 'login-by-username', outcome: 'denied' }],
  byAddressAllowed: ['redis_patterns_rate_limit_decisions_total', { limiter: 'login-by-address', outcome: 'allowed' }],
  lockAcquired: ['redis_patterns_lock_acquisitions_total', { outcome: 'acquired' }],
  lockContention: ['redis_patterns_lock_acquisitions_total', { outcome: 'contention' }],
  lockWaits: ['redis_patterns_lock_wait_duration_count', {}],
  lockWaitsUnderInf: ['redis_patterns_lock_wait_duration_bucket', { le: '+Inf' }],
  streamAcked: ['redis_patterns_stream_entries_total', { outcome: 'acked', stream: 'events', group: 'visitor-stats' }],
} as const satisfies Record<string, readonly [string, Record<string, string>]>;

type SeriesName = keyof typeof SERIES;

function read(samples: PrometheusSample[]): Record<SeriesName, number> {
  return Object.fromEntries(Object.entries(SERIES).map(([key, [name, labels]]) => [key, total(samples, name, labels)])) as Record<
    SeriesName,
    number
  >;
}

/**
 * GET /metrics on both HTTP platforms. Both apps of this file share the process's one global MeterProvider (it can
 * be set once), so the counters carry on from one app to the next: every assertion is on the difference between two
 * scrapes around traffic whose effect on each counter is known exactly.
 */
describe.each(SAMPLE_ADAPTERS)('GET /metrics (%s)', (adapterName) => {
  let app: INestApplication;
  let http: ReturnType<typeof request>;

  beforeAll(async () => {
    process.env.REDIS_URL = process.env.REDIS_URL_STANDALONE;
    process.env.REDIS_KEY_PREFIX = uniquePrefix(`metrics-${adapterName}`);
    process.env.SAMPLE_DB_LATENCY_MS = '5';
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
  });

  const scrape = async (): Promise<PrometheusSample[]> => parsePrometheus((await http.get('/metrics').expect(200)).text);

  it('answers in the Prometheus text format, with the library lock-wait buckets in seconds', async () => {
    // A cache read and a lock acquisition: a series appears once it has a data point.
    await http.get('/products/1').expect(200);
    await http.post('/orders/1/pay').expect(200);
    const response = await http.get('/metrics').expect(200);
    expect(response.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(response.text).toContain('# TYPE redis_patterns_cache_requests_total counter');
    expect(response.text).toContain('# TYPE redis_patterns_lock_wait_duration histogram');
    const buckets = parsePrometheus(response.text)
      .filter((s) => s.name === 'redis_patterns_lock_wait_duration_bucket' && s.labels.outcome === 'acquired')
      .map((s) => s.labels.le);
    expect(buckets).toEqual(expect.arrayContaining(['0.0001', '0.001', '1', '30', '+Inf']));
    expect(total(parsePrometheus(response.text), 'redis_patterns_connection_state_changes_total', { state: 'ready' })).toBeGreaterThan(0);
  });

  it('counts cache hits and misses, rate-limit decisions, lock contention and consumed stream entries', async () => {
    // Warm-up: the cache and rate-limit counters are observable counters, and an app closed earlier in this process
    // still reports its frozen totals for a label set until this app reports its own (the library never removes its
    // callbacks). Giving every label set asserted below a count in this app first makes both scrapes this app's.
    await http.get('/products/2').expect(200);
    await http.get('/products/2').expect(200);
    for (let i = 0; i < 6; i++) await http.post('/auth/login').send({ username: 'warm-up', password: 'wrong' });

    const before = read(await scrape());

    // Cache: a miss (the HTTP answer's cache and the service's below it both miss), then three hits of the first.
    const statuses: string[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await http.get('/products/61').expect(200)).headers['x-cache']);
    expect(statuses).toEqual(['MISS', 'HIT', 'HIT', 'HIT']);

    // Rate limit: wrong passwords for one username until its budget (5 a minute) answers 429.
    const logins: number[] = [];
    while (!logins.includes(429) && logins.length < 10) {
      logins.push((await http.post('/auth/login').send({ username: 'dave', password: 'wrong' })).status);
    }
    expect(logins).toEqual([401, 401, 401, 401, 401, 429]);

    // Locks: concurrent payments of fresh orders until one is refused for contention (409).
    const payments: number[] = [];
    for (let order = 70; !payments.includes(409) && order < 80; order++) {
      const responses = await Promise.all(Array.from({ length: 6 }, () => http.post(`/orders/${order}/pay`)));
      payments.push(...responses.map((r) => r.status));
    }
    expect(payments).toContain(409);
    expect(payments.every((status) => status === 200 || status === 409)).toBe(true);
    const refused = payments.filter((status) => status === 409).length;

    // Stream: five events, counted once the consumer group has acknowledged them.
    for (let i = 0; i < 5; i++)
      await http
        .post('/events')
        .send({ type: 'page_view', visitor: `metrics-${i}` })
        .expect(202);
    await waitFor(
      async () => read(await scrape()).streamAcked - before.streamAcked >= 5,
      10_000,
      () => 'the five events acknowledged',
    );

    const after = read(await scrape());
    const deltas = Object.fromEntries(Object.keys(SERIES).map((key) => [key, after[key as SeriesName] - before[key as SeriesName]]));
    expect(deltas).toEqual({
      cacheHit: 3,
      cacheMiss: 2,
      byUsernameAllowed: 5,
      byUsernameDenied: 1,
      // The per-address budget (20 a minute) is checked first and allows all six.
      byAddressAllowed: 6,
      lockAcquired: payments.length - refused,
      lockContention: refused,
      lockWaits: payments.length,
      lockWaitsUnderInf: payments.length,
      streamAcked: 5,
    });
  });
});
