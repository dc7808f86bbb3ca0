import type { RateLimitDecision } from './rate-limit-policy';
import { httpAnswer } from '../errors/http-answer';
import type { HttpResponseSpec } from '../errors/http-mappable';
import { AnsweredRedisPatternsError } from '../errors/redis-patterns.error';

/**
 * Thrown by a provider method decorated with `@RateLimit` when the call is denied; carries the decision
 * (`retryAfterMs`, `remaining`, …). Thrown through a decorated controller handler it becomes a 429 with
 * `Retry-After`.
 *
 * @example
 * try { await mailer.send(to) } catch (e) { if (e instanceof RateLimitExceededError) retryIn(e.decision.retryAfterMs) }
 */
export class RateLimitExceededError extends AnsweredRedisPatternsError {
  /** This error's stable code (docs/errors.md). */
  readonly code = 'RATE_LIMIT_EXCEEDED';
  /** When the call would be allowed, in ms (the decision's `retryAfterMs`). */
  override readonly retryAfterMs: number;

  constructor(
    readonly decision: RateLimitDecision,
    /** The limiter's name (`Class.method` unless named). */
    readonly limiter: string,
    /** Extra response headers (`RateLimit`, `RateLimit-Policy`) when known. */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(`Rate limit of "${limiter}" exceeded: retry in ${decision.retryAfterMs} ms.`);
    this.retryAfterMs = decision.retryAfterMs;
  }

  toHttpResponse(): HttpResponseSpec {
    return httpAnswer(429, 'Rate limit exceeded', { retryAfterMs: this.retryAfterMs, headers: this.headers });
  }
}
