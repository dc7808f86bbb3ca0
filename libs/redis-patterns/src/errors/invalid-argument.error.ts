import { RedisPatternsError } from './redis-patterns.error';

/** Thrown when a call receives an argument it cannot use; `argument` names it (e.g. `policy.limit`). */
export class InvalidArgumentError extends RedisPatternsError {
  /** This error's stable code (docs/errors.md). */
  readonly code = 'INVALID_ARGUMENT';

  constructor(
    readonly argument: string,
    message: string,
  ) {
    super(`Invalid argument "${argument}": ${message}`);
  }
}
