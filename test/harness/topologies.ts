import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port';
import { nodeDir, RedisProcess, waitFor } from './redis-process';
import { CLI_BIN } from './server-binaries';

const run = promisify(execFile);

/** A set of redis processes started together and stopped together. */
export interface Topology {
  readonly processes: RedisProcess[];
  stop(): Promise<void>;
}

export interface StandaloneTopology extends Topology {
  readonly server: RedisProcess;
  readonly url: string;
}

export interface ClusterTopology extends Topology {
  readonly masters: RedisProcess[];
  readonly ports: number[];
}

export interface SentinelTopology extends Topology {
  readonly master: RedisProcess;
  readonly replica: RedisProcess;
  readonly sentinels: RedisProcess[];
  readonly masterName: string;
}

function stopAll(processes: RedisProcess[]): Promise<void> {
  return Promise.all(processes.map((p) => p.stop())).then(() => undefined);
}

/** One standalone server on a free port. */
export async function startStandalone(root: string, name = 'standalone', extraArgs: string[] = []): Promise<StandaloneTopology> {
  const port = await freePort();
  const dir = nodeDir(root, `${name}-${port}`);
  const server = await new RedisProcess(port, dir, RedisProcess.dataNodeArgs(port, dir, extraArgs)).start();
  return { server, url: `redis://127.0.0.1:${port}`, processes: [server], stop: () => stopAll([server]) };
}

/** Six nodes, three masters with one replica each, every slot covered, every node agreeing. */
export async function startCluster(root: string): Promise<ClusterTopology> {
  const ports: number[] = [];
  const exclude = new Set<number>();
  for (let i = 0; i < 6; i++) ports.push(await freePort({ withBus: true, exclude }));
  const processes = ports.map((port) => {
    const dir = nodeDir(root, `cluster-${port}`);
    return new RedisProcess(
      port,
      dir,
      RedisProcess.dataNodeArgs(port, dir, [
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        join(dir, `nodes-${port}.conf`),
        '--cluster-node-timeout',
        '2000',
        '--repl-diskless-sync-delay',
        '0',
      ]),
    );
  });
  try {
    await Promise.all(processes.map((p) => p.start()));
    await run(CLI_BIN, ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '1', '--cluster-yes'], {
      timeout: 60_000,
    });
    await waitFor(
      async () => {
        const infos = await Promise.all(processes.map((p) => p.cli('CLUSTER', 'INFO')));
        return infos.every(
          (info) => info.includes('cluster_state:ok') && info.includes('cluster_known_nodes:6') && info.includes('cluster_slots_ok:16384'),
        );
      },
      30_000,
      () => 'every cluster node to report cluster_state:ok with 6 nodes and 16384 slots',
    );
  } catch (error) {
    await stopAll(processes);
    throw error;
  }
  const masters: RedisProcess[] = [];
  for (const p of processes) if ((await p.cli('ROLE')).startsWith('master')) masters.push(p);
  return { processes, ports, masters, stop: () => stopAll(processes) };
}

/** A master, one replica and three sentinels that know each other. */
export async function startSentinel(root: string, masterName = 'mymaster'): Promise<SentinelTopology> {
  const exclude = new Set<number>();
  const masterPort = await freePort({ exclude });
  const replicaPort = await freePort({ exclude });
  const masterDir = nodeDir(root, `sentinel-master-${masterPort}`);
  const replicaDir = nodeDir(root, `sentinel-replica-${replicaPort}`);
  // Without a zero diskless-sync delay the replica syncs only after 5 s, and WAIT counts no replica until then.
  const sync = ['--repl-diskless-sync-delay', '0'];
  const master = new RedisProcess(masterPort, masterDir, RedisProcess.dataNodeArgs(masterPort, masterDir, sync));
  const replica = new RedisProcess(
    replicaPort,
    replicaDir,
    RedisProcess.dataNodeArgs(replicaPort, replicaDir, [...sync, '--replicaof', '127.0.0.1', String(masterPort)]),
  );
  const sentinels: RedisProcess[] = [];
  for (let i = 0; i < 3; i++) {
    const port = await freePort({ exclude });
    const dir = nodeDir(root, `sentinel-${port}`);
    const conf = join(dir, 'sentinel.conf');
    sentinels.push(new RedisProcess(port, dir, [conf, '--sentinel']));
  }
  const processes = [master, replica, ...sentinels];
  try {
    await master.start();
    await replica.start();
    for (const sentinel of sentinels) {
      mkdirSync(sentinel.dir, { recursive: true });
      // Sentinel rewrites its config file, so each one gets its own writable copy.
      writeFileSync(
        join(sentinel.dir, 'sentinel.conf'),
        [
          `port ${sentinel.port}`,
          'bind 127.0.0.1',
          'protected-mode no',
          'daemonize no',
          'logfile ""',
          `dir ${sentinel.dir}`,
          `sentinel monitor ${masterName} 127.0.0.1 ${masterPort} 2`,
          `sentinel down-after-milliseconds ${masterName} 1000`,
          `sentinel failover-timeout ${masterName} 5000`,
          `sentinel parallel-syncs ${masterName} 1`,
          '',
        ].join('\n'),
      );
    }
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
