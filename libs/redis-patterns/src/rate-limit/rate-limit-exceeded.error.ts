import type { RateLimitDecision } from './rate-limit-policy';
import { httpAnswer } from '../errors/http-answer';
import { HttpMappableDomainError, type HttpResponseSpec } from '../errors/http-mappable';

/**
 * Thrown by a provider method decorated with `@RateLimit` when the call is denied; carries the decision
 * (`retryAfterMs`, `remaining`, …). Thrown through a decorated controller handler it becomes a 429 with
 * `Retry-After`.
 *
 * @example
 * try { await mailer.send(to) } catch (e) { if (e instanceof RateLimitExceededError) retryIn(e.decision.retryAfterMs) }
 */
export class RateLimitExceededError extends HttpMappableDomainError {
  constructor(
    readonly decision: RateLimitDecision,
    /** The limiter's name (`Class.method` unless named). */
    readonly limiter: string,
    /** Extra response headers (`RateLimit`, `RateLimit-Policy`) when known. */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(`Rate limit of "${limiter}" exceeded: retry in ${decision.retryAfterMs} ms.`);
  }

  override get name(): string {
    return this.constructor.name;
  }

  toHttpResponse(): HttpResponseSpec {
    return httpAnswer(429, 'Rate limit exceeded', { retryAfterMs: this.decision.retryAfterMs, headers: this.headers });
  }
}
