import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { type Browser, chromium } from 'playwright-core';
import request from 'supertest';
import { AppModule } from '../../apps/sample-api/src/app.module';
import { uniquePrefix } from '../support/redis-env';

/** The status page in a real headless Chromium (Debian's package, installed by `npm test`'s set-up). */
describe('status page in a browser', () => {
  let app: INestApplication;
  let browser: Browser;
  let baseUrl: string;

  beforeAll(async () => {
    process.env.REDIS_URL = process.env.REDIS_URL_STANDALONE;
    process.env.REDIS_KEY_PREFIX = uniquePrefix('status');
    process.env.SAMPLE_DB_LATENCY_MS = '2';
    const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
    app = moduleRef.createNestApplication();
    await app.listen(0, '127.0.0.1');
    baseUrl = await app.getUrl();
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
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
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('shows live values that change after requests are made', async () => {
    const page = await browser.newPage();
    await page.goto(baseUrl);
    await page.waitForFunction(() => document.getElementById('connection')?.textContent === 'live');
    await page.waitForFunction(() => document.getElementById('requests')?.textContent !== '–');
    expect(await page.textContent('#cache-hit-ratio')).toBe('0.0%');

    const http = request(app.getHttpServer());
    await http.get('/products/5');
    await http.get('/products/5');
    await http.get('/products/5');
    await http.post('/scores/zoe').send({ points: 99 });
    await http.post('/events').send({ type: 'page_view', visitor: 'browser-visitor' });

    await page.waitForFunction(() => document.getElementById('cache-hit-ratio')?.textContent === '66.7%', undefined, { timeout: 10_000 });
    await page.waitForFunction(() => document.getElementById('leaderboard')?.textContent?.includes('zoe — 99'), undefined, {
      timeout: 10_000,
    });
    await page.waitForFunction(() => document.getElementById('unique-visitors')?.textContent === '1', undefined, { timeout: 10_000 });
    expect(await page.textContent('#cache-counts')).toBe('2 hits, 1 misses');
  });
});
