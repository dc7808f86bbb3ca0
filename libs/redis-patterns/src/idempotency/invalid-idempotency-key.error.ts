import type { HttpResponseSpec } from '../errors/http-mappable';
import { AnsweredRedisPatternsError } from '../errors/redis-patterns.error';

/**
 * Thrown by `@Idempotent` and `IdempotencyService` when a call that must carry an idempotency key has none
 * (`required: true`; reason `missing`) or carries one that cannot be read (reason `malformed`: not a single quoted
 * string or bare token, empty, or over 255 characters). On HTTP it answers 400 Bad Request, as the IETF draft asks
 * for a missing key; `source` names the header (or the `key` function).
 */
export class InvalidIdempotencyKeyError extends AnsweredRedisPatternsError {
  /** This error's stable code (docs/errors.md). */
  readonly code = 'IDEMPOTENCY_KEY_INVALID';

  constructor(
    /** Where the key was expected: the header's name, or `key` when the decorator's `key` function gives it. */
    readonly source: string,
    /** `missing`: a required key is absent; `malformed`: the key given cannot be read. */
    readonly reason: 'missing' | 'malformed',
    /** What is wrong with a malformed key (ends the message). */
    detail?: string,
  ) {
    super(
      reason === 'missing' ? `This operation requires an idempotency key (${source}).` : `Invalid idempotency key in ${source}: ${detail}.`,
    );
  }

  /** 400 Bad Request, with this error's message in the body. */
  toHttpResponse(): HttpResponseSpec {
    return { status: 400, body: { statusCode: 400, error: 'Bad Request', message: this.message } };
  }
}
