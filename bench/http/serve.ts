// A benchmark HTTP app in its own process: `node -r ./scripts/register-ts.js bench/http/serve.ts <variant> <redisUrl>`.
// Prints `LISTENING <port>` once it accepts connections; exits on SIGTERM after closing the app.
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { bareModule } from './bare.app';
import { cacheManagerModule } from './cache-manager.app';
import { oursModule } from './ours.app';
import { throttlerModule } from './throttler.app';

const VARIANTS: Record<string, (redisUrl: string) => unknown> = {
  bare: bareModule,
  ours: oursModule,
  'cache-manager': cacheManagerModule,
  throttler: throttlerModule,
};

async function main(): Promise<void> {
  const [variant, redisUrl] = process.argv.slice(2);
  const create = VARIANTS[variant];
  if (!create) throw new Error(`unknown variant ${variant}; one of ${Object.keys(VARIANTS).join(', ')}`);
  const app = await NestFactory.create(create(redisUrl) as never, { logger: ['error', 'warn'] });
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address() as { port: number };
  process.stdout.write(`LISTENING ${address.port}\n`);
  process.once('SIGTERM', () => {
    void app.close().finally(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`serve failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
