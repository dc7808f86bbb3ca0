import { httpAnswer } from '../errors/http-answer';
import { HttpMappableDomainError, type HttpResponseSpec } from '../errors/http-mappable';
import { outageDetail } from '../errors/redis-unavailable.error';

/**
 * Thrown by `@Idempotent` and `IdempotencyService` when Redis cannot answer (down, or frozen past the command
 * timeout) and the call fails closed (`idempotency.failOpen: false`, the default): running it without knowing whether
 * it already ran could run it twice. On HTTP it answers 503 with `Retry-After`. Nothing ran.
 */
export class IdempotencyUnavailableError extends HttpMappableDomainError {
  constructor(
    readonly scope: string,
    options?: { cause?: unknown },
  ) {
    super(
      `Idempotency for ${scope} is unavailable (Redis did not answer); the call was refused, not run.${outageDetail(options?.cause)}`,
      options,
    );
  }

  override get name(): string {
    return this.constructor.name;
  }

  toHttpResponse(): HttpResponseSpec {
    return httpAnswer(503, 'Idempotency is unavailable; retry later.', { retryAfterMs: 1000 });
  }
}
