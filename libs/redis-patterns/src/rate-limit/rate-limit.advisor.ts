import { type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { AdvisedMethod, MethodAdvice, MethodAdvisor } from '../core/advice/method-advice.interface';
import { RateLimitDeniedError } from './rate-limit-denied.error';
import { rateLimitHeaders } from './rate-limit-headers';
import { RATE_LIMIT_SETTINGS, type RateLimitSettings } from './rate-limit.options';
import { RateLimitIdentity, type LimiterKeyParts } from './rate-limit-identity';
import { trackerPart } from './rate-limit-key';
import { RateLimiterService } from './rate-limiter.service';
import { policiesOf, type RateLimitMetadata, resolveLimiter, skipsHandlerCall } from './resolve-limiter';

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
    const { key, name, cost, outage, skipIf } = resolved;
    const ownBudget: LimiterKeyParts = [name];
    const legacy = this.settings.legacyHeaders;
    const moduleSkipIf = this.settings.skipIf;
    const decide = async (identity: LimiterKeyParts, policyArgs: readonly unknown[], proceed: () => Promise<unknown>): Promise<unknown> => {
      const compiled = resolved.compiled ?? (await policiesOf(resolved, policyArgs));
      const decision = await this.limiter.decide(identity, compiled, cost, outage, name);
      if (!decision.allowed)
        throw new RateLimitDeniedError(name, 'exceeded', { decision, headers: rateLimitHeaders(decision, compiled, legacy) });
      return proceed();
    };
    const onHandlerCall = async (context: ExecutionContext, proceed: () => Promise<unknown>): Promise<unknown> => {
      const request = this.identity.requestOf(context);
      if (await skipsHandlerCall(resolved, moduleSkipIf, request, context)) return proceed();
      return decide(await this.identity.keyOf(context, resolved), [request, context], proceed);
    };
    const onDirectCall = async (args: unknown[], proceed: () => Promise<unknown>): Promise<unknown> => {
      if (skipIf && (await skipIf(...args))) return proceed();
      if (key === undefined) return decide(ownBudget, args, proceed);
      const tracker = trackerPart(await (typeof key === 'function' ? key(...args) : key), name, '`key`');
      return decide([name, tracker], args, proceed);
    };
    return (invocation, proceed) => {
      if (invocation.http) return proceed();
      const context = invocation.context;
      return context ? onHandlerCall(context, proceed) : onDirectCall(invocation.args, proceed);
    };
  }
}
