import { RedisPatternsError } from './redis-patterns.error';

/**
 * Thrown at application startup when a redis-patterns decorator sits on a method Nest calls in a way the decorator
 * cannot apply fully to: a method that is two kinds of handler at once (an HTTP route that is also a message
 * pattern: the transports pass different arguments), or a gRPC method. The message says what to change.
 */
export class UnsupportedHandlerError extends RedisPatternsError {
  /** This error's stable code (docs/errors.md). */
  readonly code = 'UNSUPPORTED_HANDLER';

  constructor(
    /** The class that declares the decorated method. */
    readonly className: string,
    /** The decorated method. */
    readonly methodName: string,
    /** Why the decorator cannot apply and what to change (ends the message, after "but"). */
    readonly reason: string,
  ) {
    super(`${className}.${methodName} uses a redis-patterns decorator but ${reason}.`);
  }
}
