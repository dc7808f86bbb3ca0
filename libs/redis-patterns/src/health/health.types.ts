/** The health of one configured connection. */
export interface ConnectionHealth {
  /**
   * `up` when the probe answered within its deadline; `down` when it did not, when Redis refused a command the
   * patterns need, or when used memory is above `maxMemoryRatio` (`error` says which).
   */
  status: 'up' | 'down';
  /** How the connection reaches Redis: one server, a cluster, a master found through Sentinel, or memory mode. */
  kind: 'standalone' | 'cluster' | 'sentinel' | 'memory';
  /** Host and port (never credentials). */
  endpoint: string;
  /** Slowest PING among the probed nodes, in ms. */
  latencyMs?: number;
  /**
   * `master` or `slave` (replica) from INFO replication, `cluster` on a cluster, `memory` in memory mode, `unknown`
   * when the connection's user may not run INFO. Absent when the probe failed.
   */
  role?: string;
  /** `used_memory` in bytes (on a cluster, the sum over its masters); absent without INFO or when the probe failed. */
  usedMemory?: number;
  /** `maxmemory` in bytes, 0 for no cap (on a cluster, the sum, or 0 when a master has no cap); absent as `usedMemory`. */
  maxmemory?: number;
  /**
   * `usedMemory / maxmemory` (on a cluster, the highest among its masters), compared with `maxMemoryRatio`; `null`
   * when there is no cap or no INFO.
   */
  memoryRatio?: number | null;
  /** Per master, on a cluster. */
  nodes?: Array<NodeProbe & { endpoint: string }>;
  /** Why the connection is down (secret-free): an outage, or a refusal of a command the patterns need. */
  error?: string;
  /** What could not be measured on an up connection, e.g. INFO not permitted to the connection's ACL user. */
  note?: string;
}

/** The health of one connection without details (`details: false`): its status only. */
export interface ConnectionStatus {
  /** As {@link ConnectionHealth.status}. */
  status: 'up' | 'down';
}

/**
 * The `@nestjs/terminus` `HealthIndicatorResult` shape: `{ [key]: { status, ...details } }`, so the result can be
 * returned from a terminus health check as is.
 */
export type RedisHealthResult = Record<string, { status: 'up' | 'down'; connections: Record<string, ConnectionHealth> }>;

/**
 * The result of a check with `details: false`, in the same terminus shape: the overall status and each connection's
 * status, nothing else (no endpoint, role, memory or error text), for a health endpoint the public can reach.
 */
export type RedisHealthSummary = Record<string, { status: 'up' | 'down'; connections: Record<string, ConnectionStatus> }>;

/** Options of `RedisPatternsHealthIndicator.check`. */
export interface RedisHealthCheckOptions {
  /** Connections to check (default: all configured ones). */
  connections?: string[];
  /** Deadline of each connection's probe in ms (default 1000). */
  timeoutMs?: number;
  /** Report a connection `down` when used memory exceeds this fraction of maxmemory (default: never). */
  maxMemoryRatio?: number;
  /**
   * `false`: return statuses only (see {@link RedisHealthSummary}), for a public health endpoint; the full result
   * names endpoints, roles, memory and why a connection is down. Default true.
   */
  details?: boolean;
}

/**
 * What one Redis node reports about itself. Role and memory come from INFO: when the connection's ACL user may not
 * run INFO, `role` is `unknown`, the memory fields are absent and `note` says why.
 */
export interface NodeProbe {
  /** Round trip of a PING, in ms. */
  latencyMs: number;
  /** `master` or `slave` (replica), from INFO replication; `unknown` without INFO. */
  role: string;
  /** `used_memory` in bytes (absent without INFO). */
  usedMemory?: number;
  /** `maxmemory` in bytes; 0 means no cap (absent without INFO). */
  maxmemory?: number;
  /** used / maxmemory, or `null` when there is no cap or no INFO. */
  memoryRatio: number | null;
  /** `maxmemory-policy` (absent without INFO). */
  maxmemoryPolicy?: string;
  /** What could not be measured, e.g. INFO not permitted. */
  note?: string;
}
