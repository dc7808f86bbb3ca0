import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { RedisPatternsModule, type RedisPatternsModuleOptions } from 'nestjs-redis-patterns';
import { connectionFor, type TopologyName } from '../../support/redis-env';

/** The topologies the structure specs run on: every promise is checked on one server and on a 3-master cluster. */
export const STRUCTURE_TOPOLOGIES: TopologyName[] = ['standalone', 'cluster'];

/** A started Nest app with the module on `topology`, the given prefix and extra options. */
export async function startApp(
  topology: TopologyName,
  keyPrefix: string,
  extra: Omit<RedisPatternsModuleOptions, 'connection' | 'keyPrefix'> = {},
): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({
    imports: [RedisPatternsModule.forRoot({ connection: connectionFor(topology), keyPrefix, ...extra })],
  }).compile();
  const app = moduleRef.createNestApplication();
  await app.init();
  return app;
}
