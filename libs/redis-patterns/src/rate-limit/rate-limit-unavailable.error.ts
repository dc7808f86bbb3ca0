import { HttpMappableDomainError, type HttpResponseSpec } from '../errors/http-mappable';

/**
 * Thrown by a fail-closed limiter (`failOpen: false`, no in-memory fallback) when Redis cannot decide (down,
 * frozen past the command timeout): the call is refused rather than let through unlimited. HTTP: 503.
 */
export class RateLimitUnavailableError extends HttpMappableDomainError {
  constructor(
    readonly limiter: string,
    options?: { cause?: unknown },
  ) {
    super(`Rate limiter "${limiter}" is unavailable (Redis did not answer) and fails closed.`, options);
  }

  override get name(): string {
    return this.constructor.name;
  }

  toHttpResponse(): HttpResponseSpec {
    return {
      status: 503,
      headers: { 'Retry-After': '1' },
      body: { statusCode: 503, error: 'Service Unavailable', message: 'Rate limiter unavailable' },
      retryAfterMs: 1000,
    };
  }
}
