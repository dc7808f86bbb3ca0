import { Redis } from 'ioredis';
import type { RedisConnectionConfig } from '../core/options/connection-config.interface';
import { freeLoopbackPort } from './free-port';
import { type RedisServerProcess, startRedisServer } from './redis-server-process';

/** A throwaway Redis started by {@link startTestRedis}. */
export interface TestRedis {
  /** `redis://127.0.0.1:<port>` of the server (of the first node, on a cluster), with the password when one was set. */
  readonly url: string;
  /** The port of the server (of the first node, on a cluster), on 127.0.0.1. */
  readonly port: number;
  /** What to give `RedisPatternsModule.forRoot({ connection })`: the URL, or `{ cluster: { nodes } }` for a cluster. */
  readonly connection: RedisConnectionConfig;
  /** Every node (one for a standalone server, three masters for a cluster). */
  readonly nodes: ReadonlyArray<{ host: string; port: number }>;
  /** Stops every server (SIGTERM, then waits for it to exit) and removes its working directory. */
  stop(): Promise<void>;
}

/** Options of {@link startTestRedis}. */
export interface StartTestRedisOptions {
  /** `standalone` (default): one server; `cluster`: three masters sharing the 16384 slots, no replicas. */
  readonly topology?: 'standalone' | 'cluster';
  /** A password the server requires (`requirepass`); the URL carries it. Standalone only. */
  readonly password?: string;
  /** How long to wait for the servers to accept connections (default 10 000 ms). */
  readonly startTimeoutMs?: number;
  /**
   * The server executable (default: the `REDIS_SERVER_BIN` environment variable, else `redis-server` on the PATH),
   * e.g. `valkey-server` to run an application's tests on Valkey.
   */
  readonly binary?: string;
}

const CLUSTER_SLOTS = 16384;

/**
 * Starts a real Redis for tests or local runs: `redis-server` child processes (never daemonized) on free loopback
 * ports, with no persistence; resolves once they accept connections (a server in about 0.1 s, a cluster in well
 * under a second). On Linux the servers die with the process that started them, even when it is killed (SIGKILL
 * of a jest worker). When `redis-server` is missing, rejects with an error naming what to install.
 *
 * @example
 * const redis = await startTestRedis();
 * const moduleRef = await Test.createTestingModule({ imports: [RedisPatternsModule.forRoot({ connection: redis.connection })] }).compile();
 * // …
 * await redis.stop();
 */
export async function startTestRedis(options: StartTestRedisOptions = {}): Promise<TestRedis> {
  if (options.topology === 'cluster') {
    if (options.password !== undefined) throw new TypeError('startTestRedis: a password is supported on a standalone server only.');
    return startCluster(options);
  }
  const port = await freeLoopbackPort();
  const server = await startRedisServer(port, options.password === undefined ? [] : ['--requirepass', options.password], options);
  const auth = options.password === undefined ? '' : `:${encodeURIComponent(options.password)}@`;
  const url = `redis://${auth}127.0.0.1:${port}`;
  return { url, port, connection: url, nodes: [{ host: '127.0.0.1', port }], stop: () => server.stop() };
}

async function startCluster(options: StartTestRedisOptions): Promise<TestRedis> {
  const ports: number[] = [];
  for (let i = 0; i < 3; i++) ports.push(await freeLoopbackPort({ withBus: true, exclude: new Set(ports.flatMap((p) => [p, p + 10000])) }));
  const servers: RedisServerProcess[] = [];
  const stop = () => Promise.all(servers.map((server) => server.stop())).then(() => undefined);
  try {
    const args = ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '2000'];
    servers.push(...(await Promise.all(ports.map((port) => startRedisServer(port, args, options)))));
    await formCluster(ports, options.startTimeoutMs ?? 10_000);
  } catch (error) {
    await stop();
    throw error;
  }
  const nodes = ports.map((port) => ({ host: '127.0.0.1', port }));
  return { url: `redis://127.0.0.1:${ports[0]}`, port: ports[0], connection: { cluster: { nodes } }, nodes, stop };
}

/**
 * Gives each node a third of the slots and introduces them to each other (what `redis-cli --cluster create` does,
 * without its one-second waits), then waits until every node reports the cluster ok.
 */
async function formCluster(ports: readonly number[], timeoutMs: number): Promise<void> {
  const clients = ports.map((port) => new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 1 }));
  try {
    const share = Math.ceil(CLUSTER_SLOTS / ports.length);
    await Promise.all(
      clients.map((client, i) => {
        const slots: number[] = [];
        for (let slot = i * share; slot < Math.min(CLUSTER_SLOTS, (i + 1) * share); slot++) slots.push(slot);
        return client.call('CLUSTER', 'ADDSLOTS', ...slots.map(String));
      }),
    );
    for (const port of ports.slice(1)) await clients[0].call('CLUSTER', 'MEET', '127.0.0.1', String(port));
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const infos = await Promise.all(clients.map((client) => client.call('CLUSTER', 'INFO') as Promise<string>));
      if (infos.every((info) => info.includes('cluster_state:ok') && info.includes(`cluster_known_nodes:${ports.length}`))) return;
      if (Date.now() > deadline) throw new Error(`The test cluster did not converge within ${timeoutMs} ms:\n${infos.join('\n')}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    for (const client of clients) client.disconnect();
  }
}
