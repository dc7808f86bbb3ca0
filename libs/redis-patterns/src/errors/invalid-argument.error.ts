import { RedisPatternsError } from './redis-patterns.error';

/** Thrown when a call receives an argument it cannot use; `argument` names it (e.g. `policy.limit`). */
export class InvalidArgumentError extends RedisPatternsError {
  /** This error's stable code (docs/errors.md). */
  readonly code = 'INVALID_ARGUMENT';

  constructor(
    /** The path of the offending argument, as the call names it (e.g. `ttl`, `entries[2].value`). */
    readonly argument: string,
    /** What was wrong with it (the error's message after the argument's name). */
    message: string,
  ) {
    super(`Invalid argument "${argument}": ${message}`);
  }
}
