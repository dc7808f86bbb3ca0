import type { Redis } from 'ioredis';
import { parseInfo } from './parse-info';

/** What one Redis node reports about itself. */
export interface NodeProbe {
  /** Round trip of a PING, in ms. */
  latencyMs: number;
  /** `master` or `slave` (replica), from INFO replication. */
  role: string;
  /** `used_memory` in bytes. */
  usedMemory: number;
  /** `maxmemory` in bytes; 0 means no cap. */
  maxmemory: number;
  /** used / maxmemory, or `null` when there is no cap. */
  memoryRatio: number | null;
  maxmemoryPolicy: string;
}

/** PING (timed), then INFO replication and memory from one node. */
export async function probeNode(node: Redis): Promise<NodeProbe> {
  const started = performance.now();
  await node.ping();
  const latencyMs = Math.round((performance.now() - started) * 100) / 100;
  const info = parseInfo(`${await node.info('replication')}\n${await node.info('memory')}`);
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
