import type { ConnectionFailureKind } from './connection-failure';
import { RedisPatternsError } from '../../errors/redis-patterns.error';

/**
 * Thrown at startup when a connection cannot be used and waiting will not help (wrong credentials, a host name that
 * does not resolve), or, with `connectionStartup: 'wait'`, when a connection is not ready within `connectTimeoutMs`.
 * The message names the connection, its endpoint (never the password), what failed and what to check.
 */
export class ConnectionStartupError extends RedisPatternsError {
  /** This error's stable code (docs/errors.md). */
  readonly code = 'CONNECTION_STARTUP_FAILED';

  constructor(
    /** The connection's configured name (`default` for `connection`). */
    readonly connectionName: string,
    /** Where it points: `host:port`, `sentinel(name)` or `cluster(n seed nodes)`. */
    readonly endpoint: string,
    /** What failed, e.g. `wrong-credentials`, `unknown-host`, `refused`. */
    readonly reason: ConnectionFailureKind | 'not-ready',
    message: string,
  ) {
    super(message);
  }
}
