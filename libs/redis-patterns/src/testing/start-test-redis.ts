import type { RedisConnectionConfig } from '../core/options/connection-config.interface';
import { startRedisCluster } from './redis-cluster';
import { startRedisServer } from './redis-server-process';

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
  const { binary, startTimeoutMs } = options;
  if (options.topology === 'cluster') {
    if (options.password !== undefined) throw new TypeError('startTestRedis: a password is supported on a standalone server only.');
    const cluster = await startRedisCluster({ masters: 3, binary, startTimeoutMs });
    const nodes = cluster.ports.map((port) => ({ host: '127.0.0.1', port }));
    const port = cluster.ports[0];
    return { url: `redis://127.0.0.1:${port}`, port, connection: { cluster: { nodes } }, nodes, stop: cluster.stop };
  }
  const extraArgs = options.password === undefined ? [] : ['--requirepass', options.password];
  const server = await startRedisServer({ extraArgs, binary, startTimeoutMs });
  const auth = options.password === undefined ? '' : `:${encodeURIComponent(options.password)}@`;
  const url = `redis://${auth}127.0.0.1:${server.port}`;
  return { url, port: server.port, connection: url, nodes: [{ host: '127.0.0.1', port: server.port }], stop: () => server.stop() };
}
