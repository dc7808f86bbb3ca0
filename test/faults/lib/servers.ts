import type { INestApplicationContext } from '@nestjs/common';
import type { Cluster, Redis } from 'ioredis';
import type { RedisPatternsModuleOptions } from 'nestjs-redis-patterns';
import type { RedisCluster } from '../../../libs/redis-patterns/src/testing/redis-cluster';
import type { RedisServerProcess } from '../../../libs/redis-patterns/src/testing/redis-server-process';
import { startCluster, startSentinel, startStandalone, type SentinelTopology } from '../../harness/topologies';
import { createContext } from '../../fixtures/faults/fixture-env';
import { waitUntil } from './measure';
import type { ScenarioContext } from './scenario';

/** A private standalone server for this scenario, stopped by the runner afterwards. */
export async function ownStandalone(context: ScenarioContext, name = 'standalone', extraArgs: string[] = []): Promise<RedisServerProcess> {
  const server = await startStandalone(context.dir, name, extraArgs);
  context.defer(() => server.stop());
  return server;
}

export async function ownCluster(context: ScenarioContext): Promise<RedisCluster> {
  const topology = await startCluster(context.dir);
  context.defer(() => topology.stop());
  return topology;
}

/**
 * A master, a replica and three sentinels. The harness leaves repl-diskless-sync-delay at its 5 s default, so the
 * replica is listed before it has synced (WAIT then counts 0 replicas): set it to 0 on both data nodes (a failover
 * swaps them) and wait until the replica is online.
 */
export async function ownSentinel(context: ScenarioContext, name: string): Promise<SentinelTopology> {
  const topology = await startSentinel(`${context.dir}/${name}`);
  context.defer(() => topology.stop());
  await Promise.all([topology.master, topology.replica].map((p) => p.cli('CONFIG', 'SET', 'repl-diskless-sync-delay', '0')));
  await waitUntil(
    async () => /slave0:.*state=online/.test(await topology.master.cli('INFO', 'replication')),
    30_000,
    'the replica to be online',
  );
  return topology;
}

/** An application context in this process, closed by the runner afterwards (if the scenario did not). */
export async function ownApp(context: ScenarioContext, options: RedisPatternsModuleOptions): Promise<INestApplicationContext> {
  const app = await createContext(options);
  let closed = false;
  const close = app.close.bind(app);
  app.close = async () => {
    if (closed) return;
    closed = true;
    await close();
  };
  context.defer(() => app.close());
  return app;
}

/** Every key under `prefix` (SCAN, on every master of a cluster). */
export async function scanAll(client: Redis | Cluster, match: string): Promise<string[]> {
  const nodes =
    'nodes' in client && typeof (client as Cluster).nodes === 'function' ? (client as Cluster).nodes('master') : [client as Redis];
  const keys: string[] = [];
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, batch] = await node.scan(cursor, 'MATCH', match, 'COUNT', 1000);
      keys.push(...batch);
      cursor = next;
    } while (cursor !== '0');
  }
  return keys;
}

/** Keys under `match` whose PTTL is -1 (no TTL). */
export async function keysWithoutTtl(client: Redis | Cluster, match: string): Promise<string[]> {
  const keys = await scanAll(client, match);
  const missing: string[] = [];
  for (let i = 0; i < keys.length; i += 500) {
    const batch = keys.slice(i, i + 500);
    const ttls = await Promise.all(batch.map((key) => client.pttl(key)));
    ttls.forEach((ttl, j) => ttl === -1 && missing.push(batch[j]));
  }
  return missing;
}
