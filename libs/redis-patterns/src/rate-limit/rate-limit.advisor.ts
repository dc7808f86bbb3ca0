import { Injectable } from '@nestjs/common';
import { type AdvisedMethod, type MethodAdvice, type MethodAdvisor, PROCEED } from '../core/advice/method-advice.interface';
import { RateLimitExceededError } from '../errors/rate-limit-exceeded.error';
import { RateLimiterService } from './rate-limiter.service';
import { type RateLimitMetadata, resolveLimiter } from './resolve-limiter';

/** The behaviour of `@RateLimit` on provider methods (on controllers, `RateLimitGuard` does the work). */
@Injectable()
export class RateLimitAdvisor implements MethodAdvisor<RateLimitMetadata> {
  constructor(private readonly limiter: RateLimiterService) {}

  prepare(metadata: RateLimitMetadata, method: AdvisedMethod): MethodAdvice {
    const where = `${method.className}.${method.methodName}`;
    // Validates at bootstrap, for controllers too: a bad policy fails startup, not the first request.
    const limiter = resolveLimiter(metadata, where, where);
    // The guard already decided before the handler ran; deciding again would count every request twice.
    // PROCEED is left out of the chain, so the handler runs with no advice work at all.
    if (method.isController) return PROCEED;
    const { key, name, compiled, cost, outage } = limiter;
    const prefix = `${name}:`;
    return async (invocation, proceed) => {
      const identity = key === undefined ? name : prefix + String(typeof key === 'function' ? await key(...invocation.args) : key);
      const decision = await this.limiter.decide(identity, compiled, cost, outage, name);
      if (!decision.allowed) throw new RateLimitExceededError(decision, name);
      return proceed();
    };
  }
}
