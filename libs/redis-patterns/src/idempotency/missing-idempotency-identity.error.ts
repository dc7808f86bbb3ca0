import type { HttpResponseSpec } from '../errors/http-mappable';
import { AnsweredRedisPatternsError } from '../errors/redis-patterns.error';

/**
 * Thrown by `@Idempotent` when the handler's `identity` function finds no caller (it returned `undefined`, `null` or
 * `''`) for a request that carries an idempotency key. Such a request is refused rather than run in the key space
 * shared by every caller, where its key could replay another caller's response. On HTTP it answers 400 Bad Request;
 * `handler` names the `Class.method`.
 */
export class MissingIdempotencyIdentityError extends AnsweredRedisPatternsError {
  /** This error's stable code (docs/errors.md). */
  readonly code = 'IDEMPOTENCY_IDENTITY_MISSING';

  constructor(
    /** The decorated handler, as `Class.method`. */
    readonly handler: string,
  ) {
    super(`The idempotency identity of ${handler} found no caller for this request; it was refused rather than run unscoped.`);
  }

  /** 400 Bad Request, with this error's message in the body. */
  toHttpResponse(): HttpResponseSpec {
    return { status: 400, body: { statusCode: 400, error: 'Bad Request', message: this.message } };
  }
}
