import { SetMetadata, UseGuards } from '@nestjs/common';
import { createAdvisedDecorator } from '../core/advice/create-advised-decorator';
import { RateLimitAdvisor } from './rate-limit.advisor';
import { RATE_LIMIT_METADATA, SKIP_RATE_LIMIT_METADATA } from './rate-limit.constants';
import { hasRateLimitGuard, rateLimitGuardFor } from './rate-limit.guard';
import type { RateLimitPolicy } from './rate-limit-policy';
import { type RateLimitDecoratorOptions, type RateLimitPolicyResolver, toMetadata } from './resolve-limiter';

/**
 * Rate-limits a handler (HTTP route, message pattern, gateway message, resolver; on the class as a default the
 * method's own `@RateLimit` overrides) or a provider method. One decision per call: one round trip whatever the
 * number of policies, all-or-nothing.
 *
 * - On an HTTP handler: a guard answers 429 with `Retry-After` and the IETF `RateLimit` / `RateLimit-Policy` headers
 *   before the handler runs; the budget is per client address unless `key` says otherwise.
 * - On other handlers: a denial reaches the caller in the transport's form (an RPC error, a WebSocket `exception`
 *   event, a GraphQL error), each with `retryAfterMs`; see docs/decorator-mechanism.md for identities.
 * - On a provider method: a denied call throws `RateLimitDeniedError` carrying the decision.
 *
 * Invalid policies fail application startup with an `InvalidOptionsError` naming the field.
 *
 * The policies may also be a function of the call, for limits that depend on it (per plan, per tenant): of the
 * method's arguments on a provider method, of `(request, context)` on a handler Nest calls — as `key`. What it returns
 * is validated on each call (the error names the field) and compiled once per distinct parameters, so the decision
 * stays one script call. `skipIf` (same arguments) exempts a call.
 *
 * @example
 * @RateLimit({ algorithm: 'sliding-log', limit: 10, windowMs: 1000 })
 * @Get('search') search() {}
 *
 * @RateLimit([{ algorithm: 'gcra', limit: 10, periodMs: 1000 }, { algorithm: 'fixed-window', limit: 1000, windowMs: 86_400_000 }],
 *   { key: (userId: string) => userId })
 * async sendSms(userId: string, text: string) {}
 *
 * @RateLimit((request: { user: { plan: 'free' | 'pro' } }) => PLAN_LIMITS[request.user.plan], { key: (request) => request.user.id })
 * @Get('reports') reports() {}
 */
export function RateLimit(
  policy: RateLimitPolicy | readonly RateLimitPolicy[] | (RateLimitPolicy & RateLimitDecoratorOptions) | RateLimitPolicyResolver,
  options?: RateLimitDecoratorOptions,
): ClassDecorator & MethodDecorator {
  const metadata = toMetadata(policy, options);
  return ((target: object, propertyKey?: string | symbol, descriptor?: PropertyDescriptor) => {
    // One guard per place: it decides the place's limit (of `@RateLimit` written twice there, the upper one's).
    if (!descriptor) {
      Reflect.defineMetadata(RATE_LIMIT_METADATA, metadata, target);
      if (!hasRateLimitGuard(target)) UseGuards(rateLimitGuardFor(target as Function))(target as Function);
      return;
    }
    // Wrap first, then put our metadata on the wrapper: that is the function Nest's router and Reflector see.
    createAdvisedDecorator(RateLimitAdvisor, metadata, true)(target, propertyKey!, descriptor);
    Reflect.defineMetadata(RATE_LIMIT_METADATA, metadata, descriptor.value);
    if (!hasRateLimitGuard(descriptor.value as object))
      UseGuards(rateLimitGuardFor(target.constructor, String(propertyKey)))(target, propertyKey!, descriptor);
    return descriptor;
  }) as ClassDecorator & MethodDecorator;
}

/** Exempts a controller or handler from `@RateLimit` (class-level defaults and a global `RateLimitGuard`). */
export const SkipRateLimit = (): ClassDecorator & MethodDecorator => SetMetadata(SKIP_RATE_LIMIT_METADATA, true);
