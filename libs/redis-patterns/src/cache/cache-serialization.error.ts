import { RedisPatternsError } from '../errors/redis-patterns.error';

/**
 * Thrown by the cache when a value cannot be stored faithfully: a function, a symbol, a non-finite number, a
 * circular reference, or an object type that JSON would silently turn into something else (RegExp, Error,
 * Promise, typed arrays other than Buffer). `path` locates the offending part (e.g. `$.items[3].at`).
 */
export class CacheSerializationError extends RedisPatternsError {
  /** This error's stable code (docs/errors.md). */
  readonly code = 'CACHE_SERIALIZATION_FAILED';

  constructor(
    /** Where in the value the problem is, as a JSON path from `$` (the whole value), e.g. `$.items[3].at`. */
    readonly path: string,
    /** What cannot be stored there and why (e.g. `functions cannot be cached`); only in the message. */
    reason: string,
  ) {
    super(`Cannot cache the value at ${path}: ${reason}.`);
  }
}
