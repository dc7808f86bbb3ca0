import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module';
import { startTestRedis } from 'nestjs-redis-patterns/testing';
import { httpAdapterFor } from './http-platform';

async function bootstrap(): Promise<void> {
  const logger = new Logger('SampleApi');
  // SAMPLE_ADAPTER=fastify runs the API on Fastify instead of Express.
  const adapter = httpAdapterFor();
  const embedded = process.env.REDIS_URL ? undefined : await startTestRedis();
  if (embedded) {
    process.env.REDIS_URL = embedded.url;
    logger.log(`REDIS_URL is unset: started a throwaway redis-server at ${embedded.url}`);
  }
  // return503OnClosing: once closing, keep-alive clients get 503 + Connection: close, so the HTTP server can close
  // while a client keeps sending (otherwise app.close() waits for every keep-alive connection to go idle).
  const options = { return503OnClosing: true };
  const app = adapter ? await NestFactory.create(AppModule, adapter, options) : await NestFactory.create(AppModule, options);
  // Signals are handled here rather than by enableShutdownHooks() so that the embedded server stops only after
  // app.close() has run every shutdown hook (consumers drained, locks released, connections quit).
  let closing = false;
  const shutdown = async (signal: NodeJS.Signals): Promise<void> => {
    if (closing) return;
    closing = true;
    logger.log(`${signal} received: closing`);
    // The orchestrator's grace period is typically 10 s: never outlive it silently.
    setTimeout(() => {
      logger.error('Shutdown took longer than 9.5 s: exiting');
      process.exit(1);
    }, 9500).unref();
    await app.close();
    await embedded?.stop();
    process.exit(0);
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
  const port = Number(process.env.PORT ?? 3000);
  // An explicit host: Fastify would otherwise listen on localhost only.
  await app.listen(port, '0.0.0.0');
  logger.log(`Sample API (${adapter ? 'Fastify' : 'Express'}) listening on http://127.0.0.1:${port}`);
}

void bootstrap().catch((error: unknown) => {
  new Logger('SampleApi').error(error instanceof Error ? error.stack : String(error));
  process.exit(1);
});
