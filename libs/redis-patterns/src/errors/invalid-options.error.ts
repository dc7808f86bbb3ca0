import { RedisPatternsError } from './redis-patterns.error';

/**
 * Thrown at startup when a {@link RedisPatternsModuleOptions} value, or a decorator's options, is invalid.
 * `option` is the dotted path of the offending value (e.g. `cache.defaultTtl`).
 */
export class InvalidOptionsError extends RedisPatternsError {
  /** This error's stable code (docs/errors.md). */
  readonly code = 'INVALID_OPTIONS';

  constructor(
    readonly option: string,
    readonly expected: string,
    received: string,
  ) {
    super(`Invalid option "${option}": expected ${expected}, received ${received}.`);
  }
}
