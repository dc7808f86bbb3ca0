import type { HttpResponseSpec } from '../errors/http-mappable';
import { AnsweredRedisPatternsError } from '../errors/redis-patterns.error';

/**
 * Thrown by `@Idempotent` and `IdempotencyService` when an idempotency key is reused for a different request: its
 * fingerprint (by default method, path and a hash of the body on HTTP, a hash of the arguments elsewhere) differs
 * from the one the key was first used with. On HTTP it answers 422 Unprocessable Content, as the IETF draft asks.
 * Nothing ran, and the stored result is left as it was.
 */
export class IdempotencyKeyReusedError extends AnsweredRedisPatternsError {
  /** This error's stable code (docs/errors.md). */
  readonly code = 'IDEMPOTENCY_KEY_REUSED';

  constructor(
    /**
     * What the key belongs to, as the message names it: the decorated `Class.method`, or `scope "<name>"` of an
     * `IdempotencyService` call.
     */
    readonly scope: string,
  ) {
    super(`An idempotency key of ${scope} was reused with a different request payload.`);
  }

  /** 422 Unprocessable Content, without `Retry-After`: retrying this key with this payload cannot succeed. */
  toHttpResponse(): HttpResponseSpec {
    return {
      status: 422,
      body: {
        statusCode: 422,
        error: 'Unprocessable Content',
        message: 'This idempotency key was already used with a different request payload.',
      },
    };
  }
}
