import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { Cluster, Redis } from 'ioredis';
import type { RedisConnectionConfig } from '../../libs/redis-patterns/src/core/options/connection-config.interface';
import type { RedisServerProcess } from '../../libs/redis-patterns/src/testing/redis-server-process';
import { startStandalone } from '../harness/topologies';
import { waitFor } from '../harness/wait-for';

/** The topologies the harness can start; every integration spec names the ones it runs on. */
export type TopologyName = 'standalone' | 'cluster' | 'sentinel';

function required(name: string, topology: TopologyName): string {
  const value = process.env[name];
  if (!value) throw new Error(`The ${topology} topology is not running: set REDIS_TOPOLOGIES to include "${topology}" (or unset it).`);
  return value;
}

/** The module `connection` config for a topology started by globalSetup. */
export function connectionFor(topology: TopologyName): RedisConnectionConfig {
  switch (topology) {
    case 'standalone':
      return required('REDIS_URL_STANDALONE', topology);
    case 'cluster':
      return { cluster: { nodes: clusterPorts().map((port) => ({ host: '127.0.0.1', port })) } };
    case 'sentinel':
      return {
        sentinel: {
          sentinels: required('REDIS_SENTINEL_PORTS', topology)
            .split(',')
            .map((port) => ({ host: '127.0.0.1', port: Number(port) })),
          name: required('REDIS_SENTINEL_MASTER', topology),
        },
      };
  }
}

export function clusterPorts(): number[] {
  return required('REDIS_CLUSTER_PORTS', 'cluster').split(',').map(Number);
}

/** A plain ioredis client of the test's own (for assertions: SCAN, PTTL, CLIENT LIST …). Close it in afterAll. */
export function rawClient(topology: TopologyName): Redis | Cluster {
  switch (topology) {
    case 'standalone':
      return new Redis(required('REDIS_URL_STANDALONE', topology), { maxRetriesPerRequest: 1 });
    case 'cluster':
      return new Cluster(clusterPorts().map((port) => ({ host: '127.0.0.1', port })));
    case 'sentinel': {
      const sentinels = required('REDIS_SENTINEL_PORTS', topology)
        .split(',')
        .map((port) => ({ host: '127.0.0.1', port: Number(port) }));
      return new Redis({ sentinels, name: required('REDIS_SENTINEL_MASTER', topology) });
    }
  }
}

/** A key prefix unique to one test file (or test), so parallel workers never see each other's keys. */
export function uniquePrefix(label: string): string {
  return `t-${label
    .replace(/[^a-z0-9]/gi, '')
    .toLowerCase()
    .slice(0, 20)}-${randomBytes(4).toString('hex')}`;
}

/**
 * A standalone server of the test's own, for faults that must not disturb other specs (SIGSTOP, kill -9,
 * restart). Stop it in afterAll.
 */
export async function privateServer(extraArgs: string[] = []): Promise<RedisServerProcess> {
  const root = process.env.REDIS_TEST_ROOT ?? mkdtempSync(join(tmpdir(), 'redis-patterns-private-'));
  return startStandalone(root, `private-${randomBytes(3).toString('hex')}`, extraArgs);
}

/** A private master with one replica of its own, and an admin client on the master. */
export interface PrivateReplication {
  readonly master: RedisServerProcess;
  readonly replica: RedisServerProcess;
  readonly admin: Redis;
  /** Disconnects the admin client and stops both servers. */
  stop(): Promise<void>;
}

/** Starts a private master and a replica of it; resolves once the master lists the replica online. */
export async function privateReplication(): Promise<PrivateReplication> {
  const master = await privateServer(['--repl-diskless-sync-delay', '0']);
  const replica = await privateServer(['--replicaof', '127.0.0.1', String(master.port)]);
  const admin = new Redis(master.url);
  const stop = async () => {
    admin.disconnect();
    await replica.stop();
    await master.stop();
  };
  try {
    await waitFor(
      async () => /slave0:.*state=online/.test(await admin.info('replication')),
      15_000,
      () => 'the replica online',
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { master, replica, admin, stop };
}

/** Every key matching `pattern` on every master (SCAN, never KEYS). */
export async function scanKeys(client: Redis | Cluster, pattern: string): Promise<string[]> {
  const nodes = client instanceof Cluster ? client.nodes('master') : [client];
  const keys: string[] = [];
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, batch] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      keys.push(...batch);
    } while (cursor !== '0');
  }
  return keys;
}

/** Keys under `pattern` that have no TTL (invariant 1): must be empty after any workload. */
export async function keysWithoutTtl(
  client: Redis | Cluster,
  pattern: string,
  allowed: (key: string) => boolean = () => false,
): Promise<string[]> {
  const keys = await scanKeys(client, pattern);
  const ttls = await Promise.all(keys.map((key) => client.pttl(key)));
  return keys.filter((key, i) => ttls[i] === -1 && !allowed(key));
}

export { waitFor };
export { freeLoopbackPort } from '../../libs/redis-patterns/src/testing/free-port';
export type { RedisServerProcess };
