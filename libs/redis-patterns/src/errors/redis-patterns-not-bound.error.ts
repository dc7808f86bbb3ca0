import { RedisPatternsError } from './redis-patterns.error';

/**
 * Thrown when a method carrying a redis-patterns decorator runs, or its class is bootstrapped, without
 * `RedisPatternsModule` in the application. The method never runs without the behaviour its decorator promises.
 */
export class RedisPatternsNotBoundError extends RedisPatternsError {
  /** This error's stable code (docs/errors.md). */
  readonly code = 'NOT_BOUND';

  constructor(
    /** The class whose decorated method ran, or that was bootstrapped, without the module. */
    readonly className: string,
    /** The decorated method, when the error concerns one method rather than the whole class. */
    readonly methodName?: string,
    /** Why the decorator is not bound (ends the message); by default, that the module is not imported. */
    reason = 'RedisPatternsModule is not imported in this application (add RedisPatternsModule.forRoot(...) to a module)',
  ) {
    super(`${className}${methodName ? `.${methodName}` : ''} uses a redis-patterns decorator, but ${reason}.`);
  }
}
