import type { LoggerService } from '@nestjs/common';
import type { ConnectionStartup } from '../connections/startup-wait';
import type { RedisConnectionConfig } from './connection-config.interface';

/**
 * The options of `RedisPatternsModule` outside the pattern sections: connections, key prefix, deadlines, startup,
 * logging. {@link RedisPatternsModuleOptions} adds one optional section per pattern.
 */
export interface RedisPatternsCoreOptions {
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
  /**
   * How long one connection attempt may take, in ms (default 5000); with `connectionStartup: 'wait'`, also how long
   * startup waits for every connection to be ready.
   */
  connectTimeoutMs?: number;
  /**
   * What startup does about a connection that is not ready (default `'check'`):
   * - `'check'`: waits for each connection's first attempt, at most 1 s. Wrong credentials or a host name that does
   *   not resolve fail startup with a `ConnectionStartupError`; a server that is down is logged and the application
   *   starts, reconnecting in the background while patterns apply their outage policies.
   * - `'wait'`: waits until every connection is ready, at most `connectTimeoutMs`, and fails startup otherwise (for
   *   a deployment that should not serve before Redis is there).
   * - `'retry'`: like `'check'`, but nothing fails startup: wrong credentials and unknown hosts are logged and retried
   *   too (for platforms where the DNS name or the credentials appear after the application).
   */
  connectionStartup?: ConnectionStartup;
  /** Deadline of the QUIT sent to each owned connection at shutdown before it is disconnected, in ms (default 2000). */
  shutdownTimeoutMs?: number;
  /** Logger for connection events and pattern failures; defaults to Nest's Logger. */
  logger?: LoggerService;
  /** Allows `connection: 'memory://'` when `NODE_ENV=production` (default false). */
  allowMemoryInProduction?: boolean;
}
