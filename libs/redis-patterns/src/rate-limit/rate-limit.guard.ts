import { type CanActivate, type ExecutionContext, Inject, Injectable, Optional, type Type } from '@nestjs/common';
import { GUARDS_METADATA } from '@nestjs/common/constants.js';
import { Reflector } from '@nestjs/core';
import { toContextError } from '../core/advice/context-errors';
import { DroppedEventLog } from '../core/advice/dropped-event-log';
import { requestOf, setResponseHeader } from '../core/advice/handler-call';
import { RateLimitDeniedError } from './rate-limit-denied.error';
import { RATE_LIMIT_METADATA, SKIP_RATE_LIMIT_METADATA } from './rate-limit.constants';
import { rateLimitHeaders } from './rate-limit-headers';
import { RATE_LIMIT_SETTINGS, type RateLimitSettings } from './rate-limit.options';
import type { RateLimitDecision } from './rate-limit-policy';
import { RateLimitIdentity } from './rate-limit-identity';
import { RateLimitRuntime } from './rate-limit.runtime';
import type { CompiledPolicies } from './compile-policies';
import { policiesOf, type RateLimitMetadata, type ResolvedLimiter, resolveLimiter, skipsHandlerCall } from './resolve-limiter';
import { isThenable } from '../core/promises/is-thenable';
import { RedisPatternsNotBoundError } from '../errors/redis-patterns-not-bound.error';

const UNREACHABLE_MODULE =
  'RedisPatternsModule is not imported in this application (add RedisPatternsModule.forRoot(...) to a module), ' +
  'or it is registered with isGlobal: false and not imported by the module that declares this class';

interface GuardSite {
  /** The class `@RateLimit` is written on (the method's class for a method). */
  readonly classRef: Function;
  /** Undefined for a class's guard. */
  readonly methodName?: string;
}

/** Where `@RateLimit` attached each guard class of {@link rateLimitGuardFor}. */
const sites = new WeakMap<Function, GuardSite>();

interface HandlerLimiter {
  readonly classRef: Type<unknown>;
  readonly limiter: ResolvedLimiter | null;
}

/**
 * The guard behind `@RateLimit` on controllers, gateways and resolvers: one decision per call before the handler
 * runs, before pipes parse the body. `@RateLimit` puts it on the method or class it decorates (one per place), and
 * each call is decided by one guard only — the method's when the method has its own `@RateLimit`, else the class's —
 * so a class default and a method's own limit never both count a call; a guard not put by `@RateLimit` decides
 * nothing. On HTTP (Express and Fastify) it sets `RateLimit-Policy` and `RateLimit` (and `X-RateLimit-*` with
 * `rateLimit.legacyHeaders`); a denial is a 429 with `Retry-After`, a fail-closed outage a 503. In other contexts a
 * denial reaches the caller in the context's own form (see context-errors.ts). Where Nest runs no guards (GraphQL
 * field resolvers by default), it calls the method's wrapper, which decides. Identity: see rate-limit-identity.ts.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  private readonly limiters = new WeakMap<Function, HandlerLimiter>();

  // Optional so that, without the module's providers, the error names the decorated class and method instead of
  // Nest's generic "can't resolve dependencies of the RateLimitGuard".
  constructor(
    private readonly reflector: Reflector,
    @Optional() private readonly identity: RateLimitIdentity,
    @Optional() @Inject(RATE_LIMIT_SETTINGS) private readonly settings: RateLimitSettings,
    @Optional() private readonly runtime: RateLimitRuntime,
    @Optional() private readonly droppedEvents?: DroppedEventLog,
  ) {
    if (!identity || !settings || !runtime) {
      const site = sites.get(new.target);
      throw new RedisPatternsNotBoundError(site?.classRef.name ?? RateLimitGuard.name, site?.methodName, UNREACHABLE_MODULE);
    }
  }

  /**
   * Takes one decision for the call, under the handler's `@RateLimit` (else its class's), and sets the rate-limit
   * headers on HTTP. Resolves true when allowed, skipped or without a limit; throws a `RateLimitDeniedError` (in the
   * context's form) when denied or when Redis is unavailable and the limiter fails closed.
   */
  async canActivate(context: ExecutionContext): Promise<boolean> {
    const entry = this.limiterFor(context);
    const limiter = entry.limiter;
    if (!limiter) return true;
    const http = context.getType() === 'http';
    // Only limiters with a skip rule or per-call policies look at the request here: the common path stays as it was.
    const dynamic = !limiter.compiled;
    const request = dynamic || limiter.skipIf || this.settings.skipIf ? requestOf(context) : undefined;
    const skip = skipsHandlerCall(limiter, this.settings.skipIf, request, context);
    if (skip === true || (isThenable<boolean>(skip) && (await skip))) return true;
    const key = this.identity.keyOf(context, limiter);
    let decision: RateLimitDecision;
    let compiled: CompiledPolicies;
    try {
      compiled = dynamic ? await policiesOf(limiter, [request, context]) : limiter.compiled!;
      decision = await this.runtime.decide(isThenable(key) ? await key : key, compiled, limiter.cost, limiter.outage, limiter.name);
    } catch (error) {
      throw toContextError(error, context, undefined, this.droppedEvents?.report);
    }
    const legacy = this.settings.legacyHeaders;
    if (http) {
      const headers = rateLimitHeaders(decision, compiled, legacy);
      const response = context.switchToHttp().getResponse<unknown>();
      for (const name in headers) setResponseHeader(response, name, headers[name]);
      if (!decision.allowed) throw toContextError(new RateLimitDeniedError(limiter.name, 'exceeded', { decision }), context);
    } else if (!decision.allowed) {
      // Outside HTTP the headers go with the denial only (a GraphQL response over HTTP carries them).
      throw toContextError(
        new RateLimitDeniedError(limiter.name, 'exceeded', { decision, headers: rateLimitHeaders(decision, compiled, legacy) }),
        context,
        undefined,
        this.droppedEvents?.report,
      );
    }
    return true;
  }

  /**
   * The handler's limiter (its own `@RateLimit`, else the class's), resolved once per handler; null where this guard
   * does not decide (no limit, a skipped handler, or a limit another `@RateLimit` guard of the call decides).
   */
  private limiterFor(context: ExecutionContext): HandlerLimiter {
    const handler = context.getHandler();
    const classRef = context.getClass();
    const cached = this.limiters.get(handler);
    if (cached && cached.classRef === classRef) return cached;
    const own = this.reflector.get<RateLimitMetadata | undefined>(RATE_LIMIT_METADATA, handler);
    const site = sites.get(this.constructor);
    // A method's own limit is its guard's to decide, a class default the guard of the class it is written on (a
    // subclass with a default of its own also carries its parent's guard: Nest's guard metadata extends the
    // parent's); the application's own registration of the guard (no site) decides nothing.
    const decides =
      site !== undefined && (site.methodName !== undefined || (own === undefined && classWithLimit(classRef) === site.classRef));
    const skipped =
      !decides ||
      this.reflector.get<boolean | undefined>(SKIP_RATE_LIMIT_METADATA, handler) ||
      (!own && this.reflector.get<boolean | undefined>(SKIP_RATE_LIMIT_METADATA, classRef));
    const metadata = skipped ? undefined : (own ?? this.reflector.get<RateLimitMetadata | undefined>(RATE_LIMIT_METADATA, classRef));
    const where = `${classRef.name}.${handler.name}`;
    const limiter = metadata ? resolveLimiter(metadata, where, own ? where : classRef.name) : null;
    const entry: HandlerLimiter = { classRef, limiter };
    this.limiters.set(handler, entry);
    return entry;
  }
}

/** The class whose own `@RateLimit` default applies to `classRef`'s handlers: itself or its nearest parent with one. */
function classWithLimit(classRef: Function): Function | undefined {
  for (let current: unknown = classRef; typeof current === 'function'; current = Object.getPrototypeOf(current)) {
    if (Reflect.hasOwnMetadata(RATE_LIMIT_METADATA, current)) return current;
  }
  return undefined;
}

/** Whether `target` (a class, or a method) carries its own `@RateLimit` guard already: one per place, however many `@RateLimit`. */
export function hasRateLimitGuard(target: object): boolean {
  const guards = Reflect.getOwnMetadata(GUARDS_METADATA, target) as unknown[] | undefined;
  return guards?.some((guard) => typeof guard === 'function' && sites.has(guard)) ?? false;
}

/**
 * The guard class `@RateLimit` attaches at one place (a class, or one of its methods): `RateLimitGuard` itself,
 * except that an application without the module's providers fails startup naming that place.
 */
export function rateLimitGuardFor(classRef: Function, methodName?: string): typeof RateLimitGuard {
  const guard = class extends RateLimitGuard {};
  sites.set(guard, { classRef, methodName });
  // Nest names the guard in its own messages (and in a debugger): the same name as the class it extends.
  Object.defineProperty(guard, 'name', { value: RateLimitGuard.name });
  return guard;
}
