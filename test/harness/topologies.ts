import { join } from 'node:path';
import { freeLoopbackPort, freeLoopbackPorts } from '../../libs/redis-patterns/src/testing/free-port';
import { type RedisCluster, startRedisCluster } from '../../libs/redis-patterns/src/testing/redis-cluster';
import { RedisServerProcess, startRedisServer } from '../../libs/redis-patterns/src/testing/redis-server-process';
import { waitFor } from './wait-for';

// The suite's deployments, started by the testing kit's launcher and cluster builder with what the suite adds: DEBUG
// (SLEEP, for stalls) on every data node, replicas in the cluster, Sentinel, and directories under one root.

const DEBUG_ARGS = ['--enable-debug-command', 'local'];
// Without a zero diskless-sync delay a replica syncs only after 5 s, and WAIT counts no replica until then.
const SYNC_ARGS = ['--repl-diskless-sync-delay', '0'];

/** Anything globalSetup or a test starts and must stop. */
export interface Topology {
  stop(): Promise<void>;
}

export interface SentinelTopology extends Topology {
  readonly master: RedisServerProcess;
  readonly replica: RedisServerProcess;
  readonly sentinels: RedisServerProcess[];
  readonly masterName: string;
  readonly processes: RedisServerProcess[];
}

function stopAll(processes: readonly RedisServerProcess[]): Promise<void> {
  return Promise.all(processes.map((p) => p.stop())).then(() => undefined);
}

/** One standalone server on a free port, in `<root>/<name>-<port>`. */
export async function startStandalone(root: string, name = 'standalone', extraArgs: readonly string[] = []): Promise<RedisServerProcess> {
  const port = await freeLoopbackPort();
  return startRedisServer({ port, dir: join(root, `${name}-${port}`), extraArgs: [...DEBUG_ARGS, ...extraArgs] });
}

/** Six nodes, three masters with one replica each, every slot covered, every node agreeing. */
export function startCluster(root: string): Promise<RedisCluster> {
  return startRedisCluster({ masters: 3, replicasPerMaster: 1, dir: root, extraArgs: DEBUG_ARGS, startTimeoutMs: 30_000 });
}

/** A data node of a Sentinel deployment on `port` in `dir`, a replica of `masterPort` if given (not started yet). */
export function sentinelDataNode(port: number, dir: string, masterPort?: number): RedisServerProcess {
  const replicaOf = masterPort === undefined ? [] : ['--replicaof', '127.0.0.1', String(masterPort)];
  return RedisServerProcess.dataNode({ port, dir, extraArgs: [...DEBUG_ARGS, ...SYNC_ARGS, ...replicaOf] });
}

/** A master, one replica and three sentinels that know each other. */
export async function startSentinel(root: string, masterName = 'mymaster'): Promise<SentinelTopology> {
  const [masterPort, replicaPort, ...sentinelPorts] = await freeLoopbackPorts(5);
  const master = sentinelDataNode(masterPort, join(root, `sentinel-master-${masterPort}`));
  const replica = sentinelDataNode(replicaPort, join(root, `sentinel-replica-${replicaPort}`), masterPort);
  const sentinels = sentinelPorts.map((port) =>
    RedisServerProcess.sentinel({
      port,
      dir: join(root, `sentinel-${port}`),
      config: [
        `sentinel monitor ${masterName} 127.0.0.1 ${masterPort} 2`,
        `sentinel down-after-milliseconds ${masterName} 1000`,
        `sentinel failover-timeout ${masterName} 5000`,
        `sentinel parallel-syncs ${masterName} 1`,
      ],
    }),
  );
  const processes = [master, replica, ...sentinels];
  try {
    await master.start();
    await replica.start();
    await Promise.all(sentinels.map((s) => s.start()));
    await waitFor(
      async () => {
        const views = await Promise.all(sentinels.map((s) => s.cli('SENTINEL', 'MASTER', masterName)));
        return views.every((view) => /num-slaves\n1\n/.test(view) && /num-other-sentinels\n2\n/.test(view));
      },
      30_000,
      () => 'every sentinel to see the replica and the two other sentinels',
    );
  } catch (error) {
    await stopAll(processes);
    throw error;
  }
  return { master, replica, sentinels, masterName, processes, stop: () => stopAll(processes) };
}
