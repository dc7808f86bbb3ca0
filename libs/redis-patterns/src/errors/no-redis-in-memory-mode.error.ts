import { RedisPatternsError } from './redis-patterns.error';

/**
 * Thrown when something needs Redis itself (a raw client, a dedicated connection, a stream) while the module runs
 * in memory (`connection: 'memory://'`). Tests that need a real server start one with `startTestRedis()` from
 * `nestjs-redis-patterns/testing`.
 */
export class NoRedisInMemoryModeError extends RedisPatternsError {
  /** This error's stable code (docs/errors.md). */
  readonly code = 'NO_REDIS_IN_MEMORY_MODE';

  constructor(
    /** What needed a Redis server, as the message's subject (e.g. `Redis Streams`, a connection's client). */
    readonly needed: string,
  ) {
    super(
      `${needed} needs a Redis server, and RedisPatternsModule runs in memory (connection "memory://"). ` +
        'Start a throwaway server for this test with startTestRedis() from nestjs-redis-patterns/testing.',
    );
  }
}
