import { RedisPatternsError } from './redis-patterns.error';

/**
 * Thrown when a method carrying a redis-patterns decorator runs, or its class is bootstrapped, without
 * `RedisPatternsModule` in the application. The method never runs without the behaviour its decorator promises.
 */
export class RedisPatternsNotBoundError extends RedisPatternsError {
  /** This error's stable code (docs/errors.md). */
  readonly code = 'NOT_BOUND';

  constructor(
    readonly className: string,
    readonly methodName?: string,
    reason = 'RedisPatternsModule is not imported in this application (add RedisPatternsModule.forRoot(...) to a module)',
  ) {
    super(`${className}${methodName ? `.${methodName}` : ''} uses a redis-patterns decorator, but ${reason}.`);
  }
}
