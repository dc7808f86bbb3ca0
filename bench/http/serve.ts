// A benchmark HTTP app in its own process:
// `node -r ./scripts/register-ts.js bench/http/serve.ts <variant> <express|fastify> <redisUrl>`.
// Prints `LISTENING <port>` once it accepts connections; exits on SIGTERM after closing the app. Started with
// --expose-gc, it runs a full collection on SIGUSR2 and prints `COLLECTED`.
import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { appModule } from './app.module';
import { COLLECTED_LINE } from './app-process';
import { bareModule } from './bare.app';
import { cacheManagerModule } from './cache-manager.app';
import { type HttpAdapterName, HTTP_ADAPTERS, isHttpAdapter } from './http-adapter';
import { oursModule } from './ours.app';
import { throttlerModule } from './throttler.app';

/** The apps by variant name (the name AppProcess passes): every route (what the suites run), or one library's. */
const VARIANTS: Record<string, (redisUrl: string) => unknown> = {
  all: appModule,
  bare: bareModule,
  ours: oursModule,
  'cache-manager': cacheManagerModule,
  throttler: throttlerModule,
};

function createApp(module: unknown, adapter: HttpAdapterName): Promise<INestApplication> {
  const options = { logger: ['error', 'warn'] as ('error' | 'warn')[] };
  return adapter === 'fastify'
    ? NestFactory.create(module as never, new FastifyAdapter(), options)
    : NestFactory.create(module as never, options);
}

async function main(): Promise<void> {
  const [variant, adapter, redisUrl] = process.argv.slice(2);
  const create = VARIANTS[variant];
  if (!create) throw new Error(`unknown variant ${variant}; one of ${Object.keys(VARIANTS).join(', ')}`);
  if (!isHttpAdapter(adapter)) throw new Error(`unknown adapter ${adapter}; one of ${HTTP_ADAPTERS.join(', ')}`);
  const app = await createApp(create(redisUrl), adapter);
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address() as { port: number };
  process.stdout.write(`LISTENING ${address.port}\n`);
  // A full collection between measured stretches, on the benchmark's request (AppProcess.collectGarbage).
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) {
    process.on('SIGUSR2', () => {
      gc();
      process.stdout.write(`${COLLECTED_LINE}\n`);
    });
  }
  process.once('SIGTERM', () => {
    void app.close().finally(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`serve failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
