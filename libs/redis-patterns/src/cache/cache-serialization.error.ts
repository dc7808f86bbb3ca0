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
    readonly path: string,
    reason: string,
  ) {
    super(`Cannot cache the value at ${path}: ${reason}.`);
  }
}
