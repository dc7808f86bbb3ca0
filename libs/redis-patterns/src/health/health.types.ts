/** The health of one configured connection. */
export interface ConnectionHealth {
  status: 'up' | 'down';
  kind: 'standalone' | 'cluster' | 'sentinel' | 'memory';
  /** Host and port (never credentials). */
  endpoint: string;
  /** Slowest PING among the probed nodes, in ms. */
  latencyMs?: number;
  role?: string;
  usedMemory?: number;
  maxmemory?: number;
  memoryRatio?: number | null;
  /** Per master, on a cluster. */
  nodes?: Array<NodeProbe & { endpoint: string }>;
  /** Why the connection is down (secret-free). */
  error?: string;
}

/**
 * The `@nestjs/terminus` `HealthIndicatorResult` shape: `{ [key]: { status, ...details } }`, so the result can be
 * returned from a terminus health check as is.
 */
export type RedisHealthResult = Record<string, { status: 'up' | 'down'; connections: Record<string, ConnectionHealth> }>;

/** Options of {@link RedisPatternsHealthIndicator.check}. */
export interface RedisHealthCheckOptions {
  /** Connections to check (default: all configured ones). */
  connections?: string[];
  /** Deadline of each connection's probe in ms (default 1000). */
  timeoutMs?: number;
  /** Report a connection `down` when used memory exceeds this fraction of maxmemory (default: never). */
  maxMemoryRatio?: number;
}

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
