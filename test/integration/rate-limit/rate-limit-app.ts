import type { INestApplication, Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { type RateLimitOptions, RedisPatternsModule, type RedisPatternsModuleOptions } from 'nestjs-redis-patterns';

/** Starts one application instance with its own connections (several per test = several app instances). */
export async function startApp(
  options: RedisPatternsModuleOptions & { rateLimit?: RateLimitOptions },
  extra: { controllers?: Type<unknown>[]; providers?: unknown[]; http?: boolean } = {},
): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({
    imports: [RedisPatternsModule.forRoot(options)],
    controllers: extra.controllers ?? [],
    providers: (extra.providers ?? []) as Type<unknown>[],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  try {
    if (extra.http) await app.listen(0, '127.0.0.1');
    else await app.init();
  } catch (error) {
    // A failed startup still opened connections: close them so the test process can exit.
    await app.close().catch(() => undefined);
    throw error;
  }
  return app;
}
