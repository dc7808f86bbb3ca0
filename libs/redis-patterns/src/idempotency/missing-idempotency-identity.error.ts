import { HttpMappableDomainError, type HttpResponseSpec } from '../errors/http-mappable';

/**
 * Thrown by `@Idempotent` when the handler's `identity` function finds no caller (it returned `undefined`, `null` or
 * `''`) for a request that carries an idempotency key. Such a request is refused rather than run in the key space
 * shared by every caller, where its key could replay another caller's response. On HTTP it answers 400 Bad Request;
 * `handler` names the `Class.method`.
 */
export class MissingIdempotencyIdentityError extends HttpMappableDomainError {
  constructor(readonly handler: string) {
    super(`The idempotency identity of ${handler} found no caller for this request; it was refused rather than run unscoped.`);
  }

  override get name(): string {
    return this.constructor.name;
  }

  toHttpResponse(): HttpResponseSpec {
    return { status: 400, body: { statusCode: 400, error: 'Bad Request', message: this.message } };
  }
}
