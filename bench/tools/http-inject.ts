// `node -r ./scripts/register-ts.js bench/tools/http-inject.ts [--adapter express|fastify] [--rounds R]
// [--requests N]`: what each benchmark route adds to a request's CPU, without sockets. The benchmark's app (every
// route in one Nest app, bench/http/app.module.ts) runs in this process against a private redis-server, and requests
// are injected (light-my-request: Fastify's `inject`, and the same library driving Express's handler), one at a
// time, N per route per round, routes in an order rotated each round after a warm-up of every route. A route's cost
// is this process's CPU (`process.cpuUsage`, user + system) per request; its added cost is that minus the bare route's
// in the same round, summarised over the rounds as the median (p25–p75).
//
// Why: the benchmark's "app CPU per request at a fixed rate" reads a separate process's CPU at 1,000 requests/s, where
// every request also wakes the event loop, reads a socket and writes one; those costs vary more between rounds than
// the 5–40 µs a decorator adds (rounds of the same two routes differ by −60…+90 µs). Injected requests leave out the
// socket and the wake-ups, which are the same for every route, and a Redis reply is still awaited: the client's work
// on it counts.
import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { inject } from 'light-my-request';
import { appModule } from '../http/app.module';
import { NEAR_CACHED_PATH } from '../http/near-cache-stats';
import { HTTP_ROUTES } from '../http/routes';
import { PrivateRedis } from '../lib/private-redis';
import { fmt, lowerQuartile, median, upperQuartile } from '../lib/stats';

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? process.argv[at + 1] : fallback;
}

const ROUTES: Array<{ label: string; path: string; perRequest?: boolean; peer?: string }> = [
  { label: 'bare', path: HTTP_ROUTES.bare },
  { label: 'pass-through interceptor', path: HTTP_ROUTES.bareIntercepted },
  { label: '@Cacheable (near cache)', path: NEAR_CACHED_PATH },
  { label: '@Cacheable (Redis hit)', path: HTTP_ROUTES.cacheable, peer: 'CacheInterceptor' },
  { label: 'CacheInterceptor', path: HTTP_ROUTES.cacheInterceptor },
  { label: '@RateLimit (1 policy)', path: HTTP_ROUTES.rateLimit, peer: 'ThrottlerGuard (1)' },
  { label: 'ThrottlerGuard (1)', path: HTTP_ROUTES.throttler },
  { label: '@RateLimit (3 policies)', path: HTTP_ROUTES.rateLimit3, peer: 'ThrottlerGuard (3)' },
  { label: 'ThrottlerGuard (3)', path: HTTP_ROUTES.throttler3 },
  { label: '@WithLock', path: HTTP_ROUTES.locked, perRequest: true },
];

type Send = (url: string) => Promise<number>;

async function start(adapter: string, redisUrl: string): Promise<{ app: INestApplication; send: Send }> {
  const options = { logger: ['error', 'warn'] as ('error' | 'warn')[] };
  if (adapter === 'fastify') {
    const app = await NestFactory.create<NestFastifyApplication>(appModule(redisUrl) as never, new FastifyAdapter(), options);
    await app.init();
    const fastify = app.getHttpAdapter().getInstance();
    await fastify.ready();
    return { app, send: async (url) => (await fastify.inject({ method: 'GET', url })).statusCode };
  }
  const app = await NestFactory.create(appModule(redisUrl) as never, options);
  await app.init();
  const handler = app.getHttpAdapter().getInstance() as Parameters<typeof inject>[0];
  return { app, send: async (url) => (await inject(handler, { method: 'GET', url })).statusCode };
}

async function main(): Promise<void> {
  const adapter = option('adapter', 'express');
  const rounds = Number(option('rounds', '8'));
  const requests = Number(option('requests', '3000'));
  const redis = await PrivateRedis.start();
  const { app, send } = await start(adapter, redis.url);
  let lockId = 0;
  const urlOf = (route: (typeof ROUTES)[number]) => (route.perRequest ? `${route.path}?id=${lockId++ % 10_000}` : route.path);
  const runRoute = async (route: (typeof ROUTES)[number], count: number): Promise<number> => {
    const before = process.cpuUsage();
    for (let i = 0; i < count; i++) {
      const status = await send(urlOf(route));
      if (status !== 200) throw new Error(`${route.label}: HTTP ${status}`);
    }
    const used = process.cpuUsage(before);
    return (used.user + used.system) / count;
  };
  try {
    for (const route of ROUTES) await runRoute(route, Math.max(500, requests / 2));
    const perRound: number[][] = ROUTES.map(() => []);
    for (let round = 0; round < rounds; round++) {
      const order = ROUTES.map((_, i) => (i + round) % ROUTES.length);
      for (const i of order) perRound[i].push(await runRoute(ROUTES[i], requests));
    }
    const bare = perRound[0];
    process.stdout.write(
      `# bench/tools/http-inject.ts --adapter ${adapter} --rounds ${rounds} --requests ${requests}: CPU per injected request (µs), ` +
        `median (p25–p75) over rounds; added = route − bare inside each round\n`,
    );
    const range = (values: number[]) => `${fmt(median(values))} (p25–p75 ${fmt(lowerQuartile(values))}–${fmt(upperQuartile(values))})`;
    ROUTES.forEach((route, i) => {
      const own = perRound[i];
      const added = own.map((us, r) => us - bare[r]);
      process.stdout.write(`${route.label}: ${range(own)} µs${i === 0 ? '' : `; added ${range(added)} µs`}\n`);
    });
    // Against the peer route that makes the same Redis round trips, inside each round.
    ROUTES.forEach((route, i) => {
      const peer = ROUTES.findIndex((r) => r.label === route.peer);
      if (peer < 0) return;
      const diff = perRound[i].map((us, r) => us - perRound[peer][r]);
      process.stdout.write(`${route.label} − ${route.peer}: ${range(diff)} µs\n`);
    });
  } finally {
    await app.close();
    await redis.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
