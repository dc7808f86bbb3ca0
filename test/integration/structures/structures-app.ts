import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { RedisPatternsModule, type RedisPatternsModuleOptions } from 'nestjs-redis-patterns';
import { type BackendName, connectionOf } from '../../support/backends';
import type { TopologyName } from '../../support/redis-env';

/** The Redis topologies the structure specs run on: every promise is checked on one server and on a 3-master cluster. */
export const STRUCTURE_TOPOLOGIES: TopologyName[] = ['standalone', 'cluster'];

/** Where the structure behaviour specs run: the in-memory mode, and each of {@link STRUCTURE_TOPOLOGIES}. */
export const STRUCTURE_BACKENDS: BackendName[] = ['memory', ...STRUCTURE_TOPOLOGIES];

/**
 * A started Nest app with the module on `backend`, the given prefix and extra options. It starts once its connections
 * are ready (`connectionStartup: 'wait'`): these specs are about the structures, and the default waits for a first
 * attempt at most 1 s, which several apps starting at once on two loaded cores can outlast (their first commands
 * would then fail at once, as documented, instead of exercising the structure).
 */
export async function startApp(
  backend: BackendName,
  keyPrefix: string,
  extra: Omit<RedisPatternsModuleOptions, 'connection' | 'keyPrefix'> = {},
): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({
    imports: [RedisPatternsModule.forRoot({ connection: connectionOf(backend), keyPrefix, connectionStartup: 'wait', ...extra })],
  }).compile();
  const app = moduleRef.createNestApplication();
  await app.init();
  return app;
}
