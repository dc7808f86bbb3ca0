import type { LoggerService } from '@nestjs/common';
import type { RedisConnectionConfig } from './connection-config.interface';

/** The options of RedisPatternsModule that core owns; each pattern adds its own section. */
export interface CoreModuleOptions {
  /**
   * The default connection. Defaults to `redis://127.0.0.1:6379`. `'memory://'` runs every pattern in this process
   * with no Redis, for unit tests (a warning at startup; refused when `NODE_ENV=production` unless
   * `allowMemoryInProduction`).
   */
  connection?: RedisConnectionConfig;
  /** Named extra connections, e.g. `{ queue: 'redis://…' }`; pattern sections may name one. */
  connections?: Record<string, RedisConnectionConfig>;
  /**
   * A literal prefix of every key the library writes (default `rp`). It may not contain `{` or `}`, which would
   * break the hash tags the library relies on in a cluster.
   */
  keyPrefix?: string;
  /**
   * Deadline of every request-path command, in ms (default 500). A frozen server costs a caller at most this long.
   * Applied to owned connections only; blocking readers and subscribers have no command deadline.
   */
  commandTimeoutMs?: number;
  /** How long startup waits for each owned connection to become ready, in ms (default 5000). */
  connectTimeoutMs?: number;
  /** Deadline of the QUIT sent to each owned connection at shutdown before it is disconnected, in ms (default 2000). */
  shutdownTimeoutMs?: number;
  /** Logger for connection events and pattern failures; defaults to Nest's Logger. */
  logger?: LoggerService;
  /** Allows `connection: 'memory://'` when `NODE_ENV=production` (default false). */
  allowMemoryInProduction?: boolean;
}
