import { RedisPatternsError } from './redis-patterns.error';

/**
 * Thrown at startup when a {@link RedisPatternsModuleOptions} value, or a decorator's options, is invalid.
 * `option` is the dotted path of the offending value (e.g. `cache.defaultTtl`).
 */
export class InvalidOptionsError extends RedisPatternsError {
  /** This error's stable code (docs/errors.md). */
  readonly code = 'INVALID_OPTIONS';

  constructor(
    /** The dotted path of the offending value (e.g. `cache.defaultTtl`, or `@Cacheable(Class.method).ttl`). */
    readonly option: string,
    /** What a valid value looks like, in words (e.g. `a positive number`). */
    readonly expected: string,
    /** A description of the value that was given (only in the message). */
    received: string,
  ) {
    super(`Invalid option "${option}": expected ${expected}, received ${received}.`);
  }
}
