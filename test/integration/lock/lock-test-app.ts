import type { INestApplication, Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { RedisPatternsModule, type RedisPatternsModuleOptions } from 'nestjs-redis-patterns';

/** A Nest application running RedisPatternsModule with `options`, plus the given providers and controllers. */
export async function startLockApp(
  options: RedisPatternsModuleOptions,
  extra: { providers?: Type<unknown>[]; controllers?: Type<unknown>[] } = {},
): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({
    imports: [RedisPatternsModule.forRoot(options)],
    providers: extra.providers ?? [],
    controllers: extra.controllers ?? [],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  try {
    await app.init();
  } catch (error) {
    // A failed init still opened connections and registered the module's runtime: close them, or they leak
    // into the next test.
    await app.close().catch(() => undefined);
    throw error;
  }
  return app;
}

/** Resolves when `signal` aborts (immediately if it already has). */
export function aborted(signal: AbortSignal): Promise<unknown> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(signal.reason);
    signal.addEventListener('abort', () => resolve(signal.reason), { once: true });
  });
}

/** Yields to the event loop (and other clients' commands) without a fixed sleep. */
export function yieldTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
