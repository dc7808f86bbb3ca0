import { httpAnswer } from '../errors/http-answer';
import { HttpMappableDomainError, type HttpResponseSpec } from '../errors/http-mappable';
import { outageDetail } from '../errors/redis-unavailable.error';

/**
 * Thrown by a fail-closed limiter (`failOpen: false`, no in-memory fallback) when Redis cannot decide (down,
 * frozen past the command timeout): the call is refused rather than let through unlimited. HTTP: 503.
 */
export class RateLimitUnavailableError extends HttpMappableDomainError {
  constructor(
    readonly limiter: string,
    options?: { cause?: unknown },
  ) {
    super(`Rate limiter "${limiter}" is unavailable (Redis did not answer) and fails closed.${outageDetail(options?.cause)}`, options);
  }

  override get name(): string {
    return this.constructor.name;
  }

  toHttpResponse(): HttpResponseSpec {
    return httpAnswer(503, 'Rate limiter unavailable', { retryAfterMs: 1000 });
  }
}
