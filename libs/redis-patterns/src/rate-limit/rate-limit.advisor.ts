import { Inject, Injectable } from '@nestjs/common';
import { type AdvisedMethod, type MethodAdvice, type MethodAdvisor, PROCEED } from '../core/advice/method-advice.interface';
import { RateLimitDeniedError } from './rate-limit-denied.error';
import { rateLimitHeaders } from './rate-limit-headers';
import { RATE_LIMIT_SETTINGS, type RateLimitSettings } from './rate-limit.options';
import { RateLimitIdentity, type LimiterKeyParts } from './rate-limit-identity';
import { trackerPart } from './rate-limit-key';
import { RateLimitRuntime } from './rate-limit.runtime';
import { policiesOf, type RateLimitMetadata, resolveLimiter } from './resolve-limiter';

/**
 * The behaviour of a method's `@RateLimit` on a provider method (and on any call that is not Nest's): one decision
 * per call, the budget per `key(...args)` or one for the method. On a handler Nest calls, `RateLimitGuard` decides.
 */
@Injectable()
export class RateLimitAdvisor implements MethodAdvisor<RateLimitMetadata> {
  constructor(
    private readonly runtime: RateLimitRuntime,
    private readonly identity: RateLimitIdentity,
    @Inject(RATE_LIMIT_SETTINGS) private readonly settings: RateLimitSettings,
  ) {}

  prepare(metadata: RateLimitMetadata, method: AdvisedMethod): MethodAdvice {
    const where = `${method.className}.${method.methodName}`;
    // Validates at bootstrap, for handlers too: a bad policy fails startup, not the first request.
    const resolved = resolveLimiter(metadata, where, where);
    const { key, name, cost, outage, skipIf } = resolved;
    const ownBudget: LimiterKeyParts = [name];
    const legacy = this.settings.legacyHeaders;
    const decide = async (identity: LimiterKeyParts, policyArgs: readonly unknown[], proceed: () => Promise<unknown>): Promise<unknown> => {
      const compiled = resolved.compiled ?? (await policiesOf(resolved, policyArgs));
      const decision = await this.runtime.decide(identity, compiled, cost, outage, name);
      if (!decision.allowed)
        throw new RateLimitDeniedError(name, 'exceeded', { decision, headers: rateLimitHeaders(decision, compiled, legacy) });
      return proceed();
    };
    const onDirectCall = async (args: unknown[], proceed: () => Promise<unknown>): Promise<unknown> => {
      if (skipIf && (await skipIf(...args))) return proceed();
      if (key === undefined) return decide(ownBudget, args, proceed);
      const tracker = trackerPart(await (typeof key === 'function' ? key(...args) : key), name, '`key`');
      return decide([name, tracker], args, proceed);
    };
    // On a handler Nest calls, RateLimitGuard decided before the interceptors (and pipes) ran.
    if (method.handlerKind) return PROCEED;
    return (invocation, proceed) => onDirectCall(invocation.args, proceed);
  }
}
