import { RedisPatternsError } from '../errors/redis-patterns.error';

/** Thrown by `CacheService.set` when a serialized value exceeds `cache.maxValueBytes`; nothing is written. */
export class CacheValueTooLargeError extends RedisPatternsError {
  /** This error's stable code (docs/errors.md). */
  readonly code = 'CACHE_VALUE_TOO_LARGE';

  constructor(
    /** The size of the entry as it would have been stored (encoded, compressed when enabled), in UTF-8 bytes. */
    readonly bytes: number,
    /** The configured limit, `cache.maxValueBytes`, in bytes. */
    readonly maxValueBytes: number,
  ) {
    super(
      `The serialized value is ${bytes} bytes, over the cache limit of ${maxValueBytes} bytes (cache.maxValueBytes); it was not stored.`,
    );
  }
}
