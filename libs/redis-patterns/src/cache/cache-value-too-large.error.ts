import { RedisPatternsError } from '../errors/redis-patterns.error';

/** Thrown by `CacheService.set` when a serialized value exceeds `cache.maxValueBytes`; nothing is written. */
export class CacheValueTooLargeError extends RedisPatternsError {
  /** This error's stable code (docs/errors.md). */
  readonly code = 'CACHE_VALUE_TOO_LARGE';

  constructor(
    readonly bytes: number,
    readonly maxValueBytes: number,
  ) {
    super(
      `The serialized value is ${bytes} bytes, over the cache limit of ${maxValueBytes} bytes (cache.maxValueBytes); it was not stored.`,
    );
  }
}
