import { RedisPatternsError } from './redis-patterns.error';

/** Thrown by `RedisConnections.get(name)` when no connection of that name was configured. */
export class ConnectionNotFoundError extends RedisPatternsError {
  /** This error's stable code (docs/errors.md). */
  readonly code = 'CONNECTION_NOT_FOUND';

  constructor(
    /** The connection name that was asked for. */
    readonly connectionName: string,
    /** The names that are configured (listed in the message). */
    known: readonly string[],
  ) {
    super(`No Redis connection named "${connectionName}". Configured: ${known.map((n) => `"${n}"`).join(', ')}.`);
  }
}
