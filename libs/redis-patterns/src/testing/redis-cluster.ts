import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freeLoopbackPorts } from './free-port';
import { RedisServerProcess } from './redis-server-process';

const CLUSTER_SLOTS = 16384;

/** The shape of a cluster {@link startRedisCluster} builds. */
export interface RedisClusterOptions {
  /** Masters sharing the 16384 slots (default 3). */
  readonly masters?: number;
  /** Replicas of each master (default 0). */
  readonly replicasPerMaster?: number;
  /** Where the nodes' directories go (`cluster-<port>`), the caller's to remove. Default: a temporary one per node. */
  readonly dir?: string;
  /** Appended to every node's arguments. */
  readonly extraArgs?: readonly string[];
  /** Default: `REDIS_SERVER_BIN`, else `redis-server` on the PATH. */
  readonly binary?: string;
  /** How long to wait for each node to answer, and then for the cluster to agree (default 10 000 ms each). */
  readonly startTimeoutMs?: number;
}

/** A running cluster: every node on 127.0.0.1, masters first. */
export interface RedisCluster {
  readonly servers: readonly RedisServerProcess[];
  readonly masters: readonly RedisServerProcess[];
  readonly replicas: readonly RedisServerProcess[];
  /** Every node's port, masters first. */
  readonly ports: readonly number[];
  /** Stops every node (and removes the directories the nodes created for themselves). */
  stop(): Promise<void>;
}

/**
 * Starts a cluster the way `redis-cli --cluster create` forms one, without its one-second waits: distinct config
 * epochs, a contiguous share of the slots per master, every node introduced to the first, each replica attached to
 * its master; resolves once every node reports the cluster ok with every node known and every slot served.
 */
export async function startRedisCluster(options: RedisClusterOptions = {}): Promise<RedisCluster> {
  const masterCount = options.masters ?? 3;
  const nodeCount = masterCount * (1 + (options.replicasPerMaster ?? 0));
  const timeoutMs = options.startTimeoutMs ?? 10_000;
  const ports = await freeLoopbackPorts(nodeCount, { withBus: true });
  const servers = ports.map((port) =>
    RedisServerProcess.dataNode({
      port,
      dir: options.dir === undefined ? undefined : join(options.dir, `cluster-${port}`),
      extraArgs: [
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        'nodes.conf',
        '--cluster-node-timeout',
        '2000',
        // A replica's first sync would otherwise wait 5 s for more replicas to share it.
        '--repl-diskless-sync-delay',
        '0',
        ...(options.extraArgs ?? []),
      ],
      binary: options.binary,
      startTimeoutMs: timeoutMs,
    }),
  );
  const stop = () => Promise.all(servers.map((server) => server.stop())).then(() => undefined);
  try {
    await Promise.all(servers.map((server) => server.start()));
    await formCluster(ports, masterCount, timeoutMs);
  } catch (error) {
    await stop();
    throw error;
  }
  return { servers, masters: servers.slice(0, masterCount), replicas: servers.slice(masterCount), ports, stop };
}

async function formCluster(ports: readonly number[], masterCount: number, timeoutMs: number): Promise<void> {
  const clients = ports.map((port) => new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 1 }));
  const masters = clients.slice(0, masterCount);
  const replicas = clients.slice(masterCount);
  try {
    // Epochs set before the nodes meet, as redis-cli does: equal epochs would be told apart only by gossip rounds.
    await Promise.all(clients.map((client, i) => client.call('CLUSTER', 'SET-CONFIG-EPOCH', String(i + 1))));
    const share = Math.ceil(CLUSTER_SLOTS / masterCount);
    await Promise.all(
      masters.map((client, i) => {
        const slots: number[] = [];
        for (let slot = i * share; slot < Math.min(CLUSTER_SLOTS, (i + 1) * share); slot++) slots.push(slot);
        return client.call('CLUSTER', 'ADDSLOTS', ...slots.map(String));
      }),
    );
    for (const port of ports.slice(1)) await clients[0].call('CLUSTER', 'MEET', '127.0.0.1', String(port));
    const masterIds = (await Promise.all(masters.map((client) => client.call('CLUSTER', 'MYID')))) as string[];
    const attached = new Set<number>();
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      // A replica can take its master only once the handshake has given it the master's id.
      await Promise.all(
        replicas.map(async (client, i) => {
          if (attached.has(i)) return;
          await client.call('CLUSTER', 'REPLICATE', masterIds[i % masterCount]).then(
            () => attached.add(i),
            () => undefined,
          );
        }),
      );
      const infos = await Promise.all(clients.map((client) => client.call('CLUSTER', 'INFO') as Promise<string>));
      const agreed = infos.every(
        (info) =>
          info.includes('cluster_state:ok') &&
          info.includes(`cluster_known_nodes:${ports.length}`) &&
          info.includes(`cluster_slots_ok:${CLUSTER_SLOTS}`),
      );
      if (agreed && attached.size === replicas.length) return;
      if (Date.now() > deadline) throw new Error(`The test cluster did not converge within ${timeoutMs} ms:\n${infos.join('\n')}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    for (const client of clients) client.disconnect();
  }
}
