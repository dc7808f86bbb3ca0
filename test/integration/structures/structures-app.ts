import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { RedisPatternsModule, type RedisPatternsModuleOptions } from 'nestjs-redis-patterns';
import { type BackendName, connectionOf } from '../../support/backends';
import type { TopologyName } from '../../support/redis-env';

/** The Redis topologies the structure specs run on: every promise is checked on one server and on a 3-master cluster. */
export const STRUCTURE_TOPOLOGIES: TopologyName[] = ['standalone', 'cluster'];

/** Where the structure behaviour specs run: the in-memory mode, and each of {@link STRUCTURE_TOPOLOGIES}. */
export const STRUCTURE_BACKENDS: BackendName[] = ['memory', ...STRUCTURE_TOPOLOGIES];

/** A started Nest app with the module on `backend`, the given prefix and extra options. */
export async function startApp(
  backend: BackendName,
  keyPrefix: string,
  extra: Omit<RedisPatternsModuleOptions, 'connection' | 'keyPrefix'> = {},
): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({
    imports: [RedisPatternsModule.forRoot({ connection: connectionOf(backend), keyPrefix, ...extra })],
  }).compile();
  const app = moduleRef.createNestApplication();
  await app.init();
  return app;
}
