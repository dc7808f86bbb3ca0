import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { type Browser, chromium, type Page } from 'playwright-core';
import request from 'supertest';
import { AppModule } from '../../apps/sample-api/src/app.module';
import { TrafficGenerator } from '../../apps/sample-api/src/status/traffic-generator';
import { uniquePrefix, waitFor } from '../support/redis-env';

const WAIT = { timeout: 10_000 };
/** The series the charts always draw (the rate limiter's outage outcomes appear only once they happen). */
const SERIES = ['hit-ratio', 'decisions-allowed', 'decisions-denied', 'lock-wait-p99', 'stream-acked', 'stream-lag', 'stream-pending'];
/** The y of a value of 0 in every chart (status-charts.script.ts: height 200, bottom margin 24). */
const BASELINE_Y = 176;

interface SeriesShape {
  d: string;
  points: number;
  /** The smallest y of the path (its highest value); BASELINE_Y when it never left 0. */
  top: number;
}

/** A series' path as the page drew it, or null when it has none. */
function seriesShape(page: Page, key: string): Promise<SeriesShape | null> {
  return page.evaluate(
    ({ key, baseline }) => {
      const path = document.querySelector(`path[data-series="${key}"]`);
      if (!path) return null;
      const d = path.getAttribute('d') ?? '';
      const ys = [...d.matchAll(/[ML]([\d.]+) ([\d.]+)/g)].map((m) => Number(m[2]));
      return { d, points: Number(path.getAttribute('data-points')), top: Math.min(baseline, ...ys) };
    },
    { key, baseline: BASELINE_Y },
  );
}

/** How many points of a series lie above 0 (a y above the baseline). */
function pointsAboveZero(page: Page, key: string): Promise<number> {
  return page.evaluate(
    ({ key, baseline }) => {
      const d = document.querySelector(`path[data-series="${key}"]`)?.getAttribute('d') ?? '';
      return [...d.matchAll(/[ML]([\d.]+) ([\d.]+)/g)].filter((m) => Number(m[2]) < baseline).length;
    },
    { key, baseline: BASELINE_Y },
  );
}

/** Waits until more than `count` points of a series lie above 0. */
async function waitForPointsAboveZero(page: Page, key: string, count: number): Promise<void> {
  await page.waitForFunction(
    ({ key, baseline, count }) => {
      const d = document.querySelector(`path[data-series="${key}"]`)?.getAttribute('d') ?? '';
      return [...d.matchAll(/[ML]([\d.]+) ([\d.]+)/g)].filter((m) => Number(m[2]) < baseline).length > count;
    },
    { key, baseline: BASELINE_Y, count },
    WAIT,
  );
}

/** The status page in a real headless Chromium (Debian's package, installed by `npm test`'s set-up). */
describe('status page in a browser', () => {
  let app: INestApplication;
  let browser: Browser;
  let baseUrl: string;
  let http: ReturnType<typeof request>;
  let closed = false;

  beforeAll(async () => {
    process.env.REDIS_URL = process.env.REDIS_URL_STANDALONE;
    process.env.REDIS_KEY_PREFIX = uniquePrefix('status');
    // Slow enough that concurrent payments of one order overlap and contend for its lock.
    process.env.SAMPLE_DB_LATENCY_MS = '20';
    const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
    app = moduleRef.createNestApplication();
    await app.listen(0, '127.0.0.1');
    baseUrl = await app.getUrl();
    http = request(app.getHttpServer());
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      timeout: 30_000,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
        '--disable-quic',
        '--disable-sync',
      ],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    if (!closed) await app?.close();
  });

  async function openPage(): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    page.setDefaultTimeout(10_000);
    await page.goto(baseUrl, WAIT);
    await page.waitForFunction(() => document.getElementById('connection')?.textContent === 'live', undefined, WAIT);
    // The first message has been drawn (the charts' paths exist from then on).
    await page.waitForFunction(() => document.querySelector('path[data-series="decisions-allowed"]') !== null, undefined, WAIT);
    return page;
  }

  const numberIn = async (page: Page, id: string): Promise<number> => Number(await page.textContent(`#${id}`));

  it('shows live values that change after requests are made', async () => {
    const page = await openPage();
    await page.waitForFunction(() => document.getElementById('requests')?.textContent !== '–', undefined, WAIT);
    expect(await page.textContent('#cache-hit-ratio')).toBe('0.0%');

    await http.get('/products/5').expect(200);
    await http.get('/products/5').expect(200);
    await http.get('/products/5').expect(200);
    await http.post('/scores/zoe').send({ points: 99 }).expect(201);
    await http.post('/events').send({ type: 'page_view', visitor: 'browser-visitor' }).expect(202);

    // Every cache read counts (redis_patterns.cache.requests): the first request misses the HTTP answer's cache and
    // the service's below it, the next two hit the HTTP answer's.
    await page.waitForFunction(() => document.getElementById('cache-hit-ratio')?.textContent === '50.0%', undefined, WAIT);
    await page.waitForFunction(() => document.getElementById('leaderboard')?.textContent?.includes('zoe — 99'), undefined, WAIT);
    await page.waitForFunction(() => document.getElementById('unique-visitors')?.textContent === '1', undefined, WAIT);
    expect(await page.textContent('#cache-counts')).toBe('2 hits, 2 misses');
    await page.close();
  });

  it('plots every series, moves them with traffic, and shows the history to a page opened later', async () => {
    const page = await openPage();
    await page.waitForFunction((series) => series.every((key) => document.querySelector(`path[data-series="${key}"]`)), SERIES, WAIT);
    const before = {
      denied: (await seriesShape(page, 'decisions-denied'))!,
      lockWait: (await seriesShape(page, 'lock-wait-p99'))!,
      hitRatio: (await seriesShape(page, 'hit-ratio'))!,
    };
    expect(before.denied.top).toBe(BASELINE_Y);
    const ackedBefore = await pointsAboveZero(page, 'stream-acked');

    for (let i = 0; i < 6; i++) await http.post('/auth/login').send({ username: 'erin', password: 'wrong' });
    await Promise.all(Array.from({ length: 6 }, () => http.post('/orders/33/pay')));
    await http.get('/products/12').expect(200);
    await http.get('/products/12').expect(200);
    for (const visitor of ['chart-1', 'chart-2', 'chart-3']) await http.post('/events').send({ type: 'page_view', visitor }).expect(202);

    await waitForPointsAboveZero(page, 'decisions-denied', 0);
    await waitForPointsAboveZero(page, 'stream-acked', ackedBefore);
    await page.waitForFunction(
      (points) => Number(document.querySelector('path[data-series="lock-wait-p99"]')?.getAttribute('data-points')) > points,
      before.lockWait.points,
      WAIT,
    );
    await page.waitForFunction(
      (d) => {
        const path = document.querySelector('path[data-series="hit-ratio"]');
        return path !== null && path.getAttribute('d') !== d;
      },
      before.hitRatio.d,
      WAIT,
    );
    const after = (await seriesShape(page, 'decisions-denied'))!;
    expect(after.points).toBeGreaterThanOrEqual(before.denied.points);
    expect(after.top).toBeLessThan(BASELINE_Y);
    expect(await page.locator('#chart-decisions .legend').textContent()).toContain('denied');

    // A page opened now draws the minutes before it from its first message: the denial is already on it.
    const late = await openPage();
    const shape = (await seriesShape(late, 'decisions-denied'))!;
    expect(shape.points).toBeGreaterThanOrEqual(after.points);
    expect(shape.top).toBeLessThan(BASELINE_Y);
    await late.close();
    await page.close();
  });

  it('"Generate traffic" runs one burst at a time that moves every card', async () => {
    const page = await openPage();
    await page.waitForFunction(() => document.getElementById('requests')?.textContent !== '–', undefined, WAIT);
    const before = {
      requests: await numberIn(page, 'requests'),
      rateLimited: await numberIn(page, 'rate-limited'),
      lockContention: await numberIn(page, 'lock-contention'),
      visitors: await numberIn(page, 'unique-visitors'),
    };

    await page.click('#generate-traffic', WAIT);
    await page.waitForFunction(() => document.getElementById('traffic-status')?.textContent?.startsWith('running'), undefined, WAIT);
    expect(await page.isDisabled('#generate-traffic')).toBe(true);
    // One burst at a time: a second one is refused while the first runs (it takes a few seconds).
    await http.post('/status/traffic').expect(409);

    await page.waitForFunction(
      () => /^last burst: (\d+)\/\1 requests/.test(document.getElementById('traffic-status')?.textContent ?? ''),
      undefined,
      { timeout: 20_000 },
    );
    const planned = Number(/\/(\d+) requests/.exec((await page.textContent('#traffic-status')) ?? '')?.[1]);
    expect(planned).toBeGreaterThan(100);
    expect(planned).toBeLessThanOrEqual(400);
    await page.waitForFunction(
      ({ before, planned }) => {
        const number = (id: string) => Number(document.getElementById(id)?.textContent);
        return (
          number('requests') >= before.requests + planned &&
          number('rate-limited') > before.rateLimited &&
          number('lock-contention') > before.lockContention &&
          number('unique-visitors') > before.visitors
        );
      },
      { before, planned },
      WAIT,
    );
    expect(await page.textContent('#leaderboard')).toMatch(/ada|grace|linus|margaret|ken/);
    expect(await page.isDisabled('#generate-traffic')).toBe(false);
    await page.close();
  });

  it('app.close() during a burst ends it promptly, with a page still listening', async () => {
    const page = await openPage();
    await http.post('/status/traffic').expect(202);
    const generator = app.get(TrafficGenerator);
    await waitFor(
      () => (generator.lastBurst()?.sent ?? 0) >= 20,
      10_000,
      () => 'the burst under way',
    );

    const startedAt = Date.now();
    await app.close();
    closed = true;
    expect(Date.now() - startedAt).toBeLessThan(3000);
    await waitFor(
      () => generator.lastBurst()?.finishedAt != null,
      2000,
      () => 'the burst to end',
    );
    const burst = generator.lastBurst()!;
    expect(burst.sent).toBeLessThan(burst.planned);
    await page.waitForFunction(() => document.getElementById('connection')?.textContent !== 'live', undefined, WAIT);
  }, 30_000);
});
