import { Cluster, type Redis } from 'ioredis';
import { RedisConnections } from '../core/connections/redis-connections';
import { readyWithin } from '../core/connections/ready-within';
import type { ResolvedCoreOptions } from '../core/options/resolve-options';
import { RESOLVED_OPTIONS } from '../redis-patterns.constants';

/** What {@link clearKeys} clears: a Nest application (or testing module) that imports RedisPatternsModule. */
export interface AppWithRedisPatterns {
  /** Nest's `get` of an application or a testing module. */
  get<T>(token: unknown, options?: { strict?: boolean }): T;
}

const SCAN_COUNT = 500;

/**
 * Removes the application's keys — every key under its `keyPrefix`, on every connection (each master of a
 * cluster) — and nothing else: SCAN with MATCH and UNLINK in batches, never FLUSHDB, so tests sharing a server with
 * other data (or with other test files under other prefixes) never disturb it. Resolves the number of keys removed.
 * In memory mode (`connection: 'memory://'`) it clears the module's in-memory keys the same way. A connection that
 * is still connecting (or reconnecting) is waited for, at most the module's `connectTimeoutMs`.
 *
 * @throws Error when the application's `keyPrefix` is empty: clearing would remove every key of the database.
 * @example
 * afterEach(() => clearKeys(app));
 */
export async function clearKeys(app: AppWithRedisPatterns): Promise<number> {
  const connections = app.get<RedisConnections>(RedisConnections, { strict: false });
  const { keyPrefix, connectTimeoutMs } = app.get<ResolvedCoreOptions>(RESOLVED_OPTIONS, { strict: false });
  if (!keyPrefix)
    throw new Error('clearKeys: the application has an empty keyPrefix, so every key of the database would match; give it a keyPrefix.');
  // Memory mode: the module's own keyspace holds exactly the keys the Redis stores would write.
  if (connections.memory) return connections.memory.deleteByPrefix(`${keyPrefix}:`);
  const match = `${keyPrefix.replace(/[*?[\]\\]/g, (char) => `\\${char}`)}:*`;
  const seen = new Set<Redis | Cluster>();
  let removed = 0;
  for (const name of connections.names()) {
    const client = connections.get(name);
    if (seen.has(client)) continue;
    seen.add(client);
    await whenReady(client, connectTimeoutMs, `connection "${name}"`);
    const nodes = client instanceof Cluster ? client.nodes('master') : [client];
    for (const node of nodes) {
      await whenReady(node, connectTimeoutMs, `connection "${name}" (${node.options.host}:${node.options.port})`);
      removed += await clearNode(node, match);
    }
  }
  return removed;
}

/**
 * Resolves once the client is ready, connecting it if it waits for a first command (a cluster's node): a test may
 * clear keys while the application's connection still connects, and the library's clients queue nothing offline.
 * Rejects after `ms` naming the connection and its state.
 */
async function whenReady(client: Redis | Cluster, ms: number, what: string): Promise<void> {
  if (client.status === 'wait') client.connect().catch(() => undefined);
  if (!(await readyWithin(client, ms))) throw new Error(`clearKeys: ${what} is not ready after ${ms} ms (${client.status})`);
}

async function clearNode(node: Redis, match: string): Promise<number> {
  let removed = 0;
  let cursor = '0';
  do {
    const [next, keys] = await node.scan(cursor, 'MATCH', match, 'COUNT', SCAN_COUNT);
    cursor = next;
    // One UNLINK per key: on a cluster node keys of one SCAN page sit in different slots.
    if (keys.length > 0) removed += (await Promise.all(keys.map((key) => node.unlink(key)))).reduce((sum, n) => sum + n, 0);
  } while (cursor !== '0');
  return removed;
}
