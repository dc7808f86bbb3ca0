import { Cluster, type Redis } from 'ioredis';
import type { RedisConnections } from '../core/connections/redis-connections';
import { RedisExecutor } from '../core/scripts/redis-executor';
import type { ConnectionHealth, NodeProbe } from './health.types';
import { parseInfo } from './parse-info';
import { configurationReplyCode } from '../errors/redis-refused.error';

/** What a probe of one connection found (the indicator adds status, kind and endpoint). */
export type ConnectionProbe = Omit<ConnectionHealth, 'status' | 'kind' | 'endpoint'>;

/** Where the health indicator's probes go: one probe per configured connection. Rejects when it cannot answer. */
export interface HealthStore {
  probe(connection: string): Promise<ConnectionProbe>;
}

/** Injection token of the pattern's {@link HealthStore}. */
export const HEALTH_STORE = Symbol('RedisPatterns:HealthStore');

/** The module's memory mode: always up, nothing to measure. */
export class MemoryHealthStore implements HealthStore {
  probe(): Promise<ConnectionProbe> {
    return Promise.resolve({ latencyMs: 0, role: 'memory', usedMemory: 0, maxmemory: 0, memoryRatio: null });
  }
}

/** Probes Redis: PING latency, role and memory of the server, or of every master of a cluster. */
export class RedisHealthStore implements HealthStore {
  constructor(private readonly connections: RedisConnections) {}

  async probe(connection: string): Promise<ConnectionProbe> {
    const client = this.connections.get(connection);
    if (!(client instanceof Cluster)) {
      const { maxmemoryPolicy: _policy, ...node } = await probeNode(client);
      return node;
    }
    const masters = client.nodes('master');
    if (masters.length === 0) throw new Error('no cluster master is known');
    const nodes = await Promise.all(
      masters.map(async (node) => ({ endpoint: `${node.options.host}:${node.options.port}`, ...(await probeNode(node)) })),
    );
    const measured = nodes.filter((n) => n.usedMemory !== undefined);
    const notes = [...new Set(nodes.map((n) => n.note).filter((note) => note !== undefined))];
    const memory =
      measured.length === nodes.length
        ? {
            usedMemory: measured.reduce((sum, n) => sum + n.usedMemory!, 0),
            maxmemory: measured.every((n) => n.maxmemory! > 0) ? measured.reduce((sum, n) => sum + n.maxmemory!, 0) : 0,
          }
        : {};
    return {
      latencyMs: Math.max(...nodes.map((n) => n.latencyMs)),
      role: 'cluster',
      ...memory,
      memoryRatio: Math.max(...nodes.map((n) => n.memoryRatio ?? 0)) || null,
      nodes,
      ...(notes.length > 0 ? { note: notes.join('; ') } : {}),
    };
  }
}

/**
 * PING (timed), then INFO replication and memory from one node. INFO goes straight to the node, not through the
 * executor: a user that may not run INFO is a limit of what health can see, not a refusal of what the patterns need,
 * and must not replace the connection's last refusal (which health reports).
 */
export async function probeNode(node: Redis): Promise<NodeProbe> {
  const started = performance.now();
  await RedisExecutor.of(node).call('ping');
  const latencyMs = Math.round((performance.now() - started) * 100) / 100;
  let text: string;
  try {
    const [replication, memory] = await Promise.all([node.call('info', 'replication'), node.call('info', 'memory')]);
    text = `${String(replication)}\n${String(memory)}`;
  } catch (error) {
    const reply = configurationReplyCode(error);
    if (reply === undefined) throw error;
    return { latencyMs, role: 'unknown', memoryRatio: null, note: `info unavailable: the connection's user may not run INFO (${reply})` };
  }
  const info = parseInfo(text);
  const usedMemory = Number(info.used_memory ?? 0);
  const maxmemory = Number(info.maxmemory ?? 0);
  return {
    latencyMs,
    role: info.role ?? 'unknown',
    usedMemory,
    maxmemory,
    memoryRatio: maxmemory > 0 ? Math.round((usedMemory / maxmemory) * 10_000) / 10_000 : null,
    maxmemoryPolicy: info.maxmemory_policy ?? 'unknown',
  };
}
