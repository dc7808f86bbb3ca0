// Regenerates docs/images/status-page.png, the README's picture of the sample API's status page:
//   node -r ./scripts/register-ts.js scripts/screenshot-status-page.ts
// Starts the sample API in this process against a throwaway redis-server, opens the page in headless Chromium
// (Debian's /usr/bin/chromium), generates two bursts of traffic a few seconds apart, waits for the charts to draw
// them and writes a 1200×800 screenshot. About half a minute; everything it starts is stopped, whatever happens.
import 'reflect-metadata';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { startTestRedis } from 'nestjs-redis-patterns/testing';
import { type Browser, chromium, type Page } from 'playwright-core';
import { AppModule } from '../apps/sample-api/src/app.module';

const OUTPUT = join(__dirname, '../docs/images/status-page.png');
const TIMEOUT = { timeout: 20_000 };

/** Clicks "Generate traffic" and waits for the burst to finish (the page reports "last burst: n/n requests"). */
async function burst(page: Page): Promise<void> {
  await page.click('#generate-traffic', TIMEOUT);
  await page.waitForFunction(() => document.getElementById('traffic-status')?.textContent?.startsWith('running'), undefined, TIMEOUT);
  await page.waitForFunction(
    () => /^last burst: (\d+)\/\1 requests/.test(document.getElementById('traffic-status')?.textContent ?? ''),
    undefined,
    TIMEOUT,
  );
}

/** Waits until the charts hold at least `samples` points of the decisions series (one a second). */
async function chartsHold(page: Page, samples: number): Promise<void> {
  await page.waitForFunction(
    (n) => Number(document.querySelector('path[data-series="decisions-allowed"]')?.getAttribute('data-points')) >= n,
    samples,
    { timeout: samples * 1000 + 20_000 },
  );
}

async function main(): Promise<void> {
  const redis = await startTestRedis();
  let app: INestApplication | undefined;
  let browser: Browser | undefined;
  try {
    process.env.REDIS_URL = redis.url;
    process.env.REDIS_KEY_PREFIX = 'screenshot';
    app = await NestFactory.create(AppModule, { logger: ['warn', 'error'] });
    await app.listen(0, '127.0.0.1');
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      timeout: 30_000,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run', '--disable-sync'],
    });
    const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    await page.goto(await app.getUrl(), TIMEOUT);
    await page.waitForFunction(() => document.getElementById('connection')?.textContent === 'live', undefined, TIMEOUT);

    // A few quiet seconds, a burst, a pause, a second burst (the per-address login budget runs out during this one,
    // so more logins are refused) and a few seconds after it: every chart has something to show.
    await chartsHold(page, 5);
    await burst(page);
    await chartsHold(page, 20);
    await burst(page);
    await chartsHold(page, 32);

    mkdirSync(dirname(OUTPUT), { recursive: true });
    await page.screenshot({ path: OUTPUT, ...TIMEOUT });
    console.log(`Wrote ${OUTPUT}`);
  } finally {
    await browser?.close();
    await app?.close();
    await redis.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
