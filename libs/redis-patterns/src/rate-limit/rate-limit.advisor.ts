import { Inject, Injectable } from '@nestjs/common';
import type { AdvisedMethod, MethodAdvice, MethodAdvisor } from '../core/advice/method-advice.interface';
import { RateLimitExceededError } from './rate-limit-exceeded.error';
import { rateLimitHeaders } from './rate-limit-headers';
import { RATE_LIMIT_SETTINGS, type RateLimitSettings } from './rate-limit.options';
import { RateLimitIdentity } from './rate-limit-identity';
import { RateLimiterService } from './rate-limiter.service';
import { type RateLimitMetadata, resolveLimiter } from './resolve-limiter';

/**
 * The behaviour of a method's `@RateLimit`: on a provider method (and on any method called directly), one decision
 * per call, the budget per `key(...args)` or one for the method; on a handler Nest calls outside HTTP (message
 * pattern, gateway message, resolver), one decision per call with the context's identity (see RateLimitIdentity).
 * On HTTP, `RateLimitGuard` has decided before pipes ran: deciding again would count every request twice.
 */
@Injectable()
export class RateLimitAdvisor implements MethodAdvisor<RateLimitMetadata> {
  constructor(
    private readonly limiter: RateLimiterService,
    private readonly identity: RateLimitIdentity,
    @Inject(RATE_LIMIT_SETTINGS) private readonly settings: RateLimitSettings,
  ) {}

  prepare(metadata: RateLimitMetadata, method: AdvisedMethod): MethodAdvice {
    const where = `${method.className}.${method.methodName}`;
    // Validates at bootstrap, for handlers too: a bad policy fails startup, not the first request.
    const resolved = resolveLimiter(metadata, where, where);
    const { key, name, compiled, cost, outage } = resolved;
    const prefix = `${name}:`;
    const legacy = this.settings.legacyHeaders;
    const decide = async (identity: string, proceed: () => Promise<unknown>): Promise<unknown> => {
      const decision = await this.limiter.decide(identity, compiled, cost, outage, name);
      if (!decision.allowed) throw new RateLimitExceededError(decision, name, rateLimitHeaders(decision, compiled, legacy));
      return proceed();
    };
    return (invocation, proceed) => {
      const context = invocation.context;
      if (invocation.http) return proceed();
      if (context) {
        const identity = this.identity.keyOf(context, resolved);
        return typeof identity === 'string' ? decide(identity, proceed) : identity.then((value) => decide(value, proceed));
      }
      if (key === undefined) return decide(name, proceed);
      return Promise.resolve(typeof key === 'function' ? key(...invocation.args) : key).then((value) =>
        decide(prefix + String(value), proceed),
      );
    };
  }
}
