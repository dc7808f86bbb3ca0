import { RedisPatternsError } from '../errors/redis-patterns.error';

/**
 * Thrown by `RedisPatternsHealthIndicator.isHealthy` when a connection is down. It follows the contract of
 * `@nestjs/terminus`' `HealthCheckError` (`isHealthCheckError`, `causes`) without depending on terminus, so
 * `HealthCheckService.check()` reports it as a `down` indicator with the details in `causes`.
 */
export class RedisHealthCheckError extends RedisPatternsError {
  /** This error's stable code (docs/errors.md). */
  readonly code = 'HEALTH_CHECK_FAILED';

  /** Marker terminus uses to recognise a health-check failure. */
  readonly isHealthCheckError = true;

  constructor(
    message: string,
    /** The full result of the check (`{ [key]: { status: 'down', connections } }`), which terminus reports as details. */
    readonly causes: Record<string, unknown>,
  ) {
    super(message);
  }
}
