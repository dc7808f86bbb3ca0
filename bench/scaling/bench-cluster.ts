import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import type { RedisCluster } from '../../libs/redis-patterns/src/testing/redis-cluster';
import { startCluster } from '../../test/harness/topologies';
import type { ClusterConnection } from './worker-protocol';

/**
 * A 3-master Redis cluster (each master with one replica) owned by the benchmark, in a temporary directory, with
 * a plain connection to every master to read its CPU counters.
 */
export class BenchCluster {
  // Where setpriv is missing, redis-server does not exit with the process that started it: if the benchmark exits
  // without its teardown (an uncaught error, process.exit), the six nodes are killed by PID on the way out.
  private readonly killOnExit = () => {
    for (const node of this.topology.servers) {
      try {
        if (node.pid) process.kill(node.pid, 'SIGKILL');
      } catch {}
    }
  };

  private constructor(
    private readonly topology: RedisCluster,
    private readonly dir: string,
    private readonly admins: Redis[],
  ) {
    process.once('exit', this.killOnExit);
  }

  /** Starts the six nodes and waits until every slot is served; stops what it started if that fails. */
  static async start(): Promise<BenchCluster> {
    const dir = mkdtempSync(join(tmpdir(), 'redis-bench-cluster-'));
    let topology: RedisCluster | undefined;
    const admins: Redis[] = [];
    try {
      topology = await startCluster(dir);
      for (const master of topology.masters) {
        const admin = new Redis({ port: master.port, host: '127.0.0.1', lazyConnect: true, enableAutoPipelining: false });
        admins.push(admin);
        await admin.connect();
      }
      return new BenchCluster(topology, dir, admins);
    } catch (error) {
      for (const admin of admins) admin.disconnect();
      await topology?.stop();
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
  }

  /** Every node as a seed, so the client finds the slot map even if one node is slow to answer. */
  get connection(): ClusterConnection {
    return { cluster: { nodes: this.topology.ports.map((port) => ({ host: '127.0.0.1', port })) } };
  }

  /**
   * CPU (user + system, µs) the three masters have used so far, from `INFO cpu`. Replicas are not counted: the
   * standalone server compared with has none, and a master's cost of feeding its replica is in its own figure.
   */
  mastersCpuUs(): Promise<number> {
    return serversCpuUs(this.admins);
  }

  /** Stops the six nodes (SIGTERM, SIGKILL after the harness's deadline) and removes their directory. */
  async stop(): Promise<void> {
    process.off('exit', this.killOnExit);
    for (const admin of this.admins) admin.disconnect();
    try {
      await this.topology.stop();
    } finally {
      rmSync(this.dir, { recursive: true, force: true });
    }
  }
}

/** CPU (user + system, µs) the servers behind `clients` have used so far, summed, from `INFO cpu`. */
export async function serversCpuUs(clients: readonly Redis[]): Promise<number> {
  const infos = await Promise.all(clients.map((client) => client.info('cpu')));
  let seconds = 0;
  for (const info of infos) {
    const field = (name: string) => Number(new RegExp(`^${name}:([0-9.]+)`, 'm').exec(info)?.[1] ?? Number.NaN);
    seconds += field('used_cpu_user') + field('used_cpu_sys');
  }
  return seconds * 1e6;
}
