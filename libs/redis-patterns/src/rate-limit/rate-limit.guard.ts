import { type CanActivate, type ExecutionContext, HttpException, Inject, Injectable, type Type } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { toHttpCall } from '../core/advice/http-call';
import type { ResolvedRedisPatternsOptions } from '../core/options/resolve-options';
import { RateLimitExceededError } from '../errors/rate-limit-exceeded.error';
import { RateLimitUnavailableError } from '../errors/rate-limit-unavailable.error';
import { RESOLVED_OPTIONS } from '../redis-patterns.constants';
import { clientAddress } from './client-address';
import { RATE_LIMIT_METADATA, SKIP_RATE_LIMIT_METADATA } from './rate-limit.constants';
import { rateLimitHeaders } from './rate-limit-headers';
import type { RateLimitDecision } from './rate-limit-policy';
import { RateLimiterService } from './rate-limiter.service';
import { type RateLimitMetadata, type ResolvedLimiter, resolveLimiter } from './resolve-limiter';

type ClientRequest = Parameters<typeof clientAddress>[0] & { socket?: { remoteAddress?: string }; raw?: { socket?: { remoteAddress?: string } } };

// Set on the request once decided: the guard may run twice (class + handler `@RateLimit`, or also as APP_GUARD).
const DECIDED = Symbol('redis-patterns:rate-limit-decided');

/**
 * The guard behind `@RateLimit` on controllers: one decision per request before the handler runs; headers
 * `RateLimit-Policy`, `RateLimit` (and `X-RateLimit-*` with `rateLimit.legacyHeaders`); 429 with `Retry-After` when
 * denied; 503 when Redis is down and the limiter fails closed. Without `@RateLimit` metadata it allows everything,
 * so it can also be registered as an `APP_GUARD`. Subclass it to change identity (`getTracker`), keys
 * (`generateKey`) or the request source (`getRequestResponse`, e.g. for GraphQL).
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  private readonly limiters = new WeakMap<Function, { classRef: Type<unknown>; limiter: ResolvedLimiter | null }>();
  private readonly socketAddresses = new WeakMap<object, string>();

  constructor(
    protected readonly reflector: Reflector,
    protected readonly limiter: RateLimiterService,
    @Inject(RESOLVED_OPTIONS) protected readonly options: ResolvedRedisPatternsOptions,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const limiter = this.limiterFor(context);
    if (!limiter) return true;
    const { request, response } = this.getRequestResponse(context);
    if (!request || (request as Record<symbol, unknown>)[DECIDED]) return true;
    (request as Record<symbol, unknown>)[DECIDED] = true;
    const { key } = limiter;
    let tracker: string;
    if (key === undefined) {
      // Not awaited when synchronous (the default): one microtask less on every request.
      const value = this.getTracker(request, context);
      tracker = typeof value === 'string' ? value : await value;
    } else {
      tracker = String(typeof key === 'function' ? await key(request, context) : key);
    }
    let decision: RateLimitDecision;
    try {
      decision = await this.limiter.decide(this.generateKey(context, tracker, limiter.name), limiter.compiled, limiter.cost, limiter.outage, limiter.name);
    } catch (error) {
      if (!(error instanceof RateLimitUnavailableError)) throw error;
      throw this.toHttpException(error, response);
    }
    const headers = rateLimitHeaders(decision, limiter.compiled, this.options.rateLimit?.legacyHeaders ?? false);
    const call = toHttpCall(request, response);
    for (const name in headers) call.setHeader(name, headers[name]);
    if (!decision.allowed) this.throwRateLimitException(context, decision, limiter);
    return true;
  }

  /** The client identity a budget is counted per; default: the client address (see `rateLimit.trustProxyHops`). */
  protected getTracker(request: unknown, _context: ExecutionContext): string | Promise<string> {
    const options = this.options.rateLimit;
    const hops = options?.trustProxyHops ?? 0;
    const req = request as ClientRequest;
    // Without trusted proxies the identity is the socket's peer, fixed for the connection's life: normalise it
    // once per keep-alive connection rather than on every request.
    const socket = hops === 0 ? (req.socket ?? req.raw?.socket) : undefined;
    if (socket?.remoteAddress) {
      let address = this.socketAddresses.get(socket);
      if (address === undefined) this.socketAddresses.set(socket, (address = clientAddress(req, 0, options?.ipv6Subnet ?? 64)));
      return address;
    }
    return clientAddress(req, hops, options?.ipv6Subnet ?? 64);
  }

  /** The limiter key of a request (escaped and length-bounded by the key builder): `<limiter name>:<tracker>`. */
  protected generateKey(_context: ExecutionContext, tracker: string, limiterName: string): string {
    return `${limiterName}:${tracker}`;
  }

  /** The request and response of the call; override for GraphQL or other transports. */
  protected getRequestResponse(context: ExecutionContext): { request: object | undefined; response: unknown } {
    if (context.getType() !== 'http') return { request: undefined, response: undefined };
    const http = context.switchToHttp();
    return { request: http.getRequest<object>(), response: http.getResponse<unknown>() };
  }

  /** Throws the 429 (headers are already set). */
  protected throwRateLimitException(_context: ExecutionContext, decision: RateLimitDecision, limiter: ResolvedLimiter): never {
    const spec = new RateLimitExceededError(decision, limiter.name).toHttpResponse();
    throw new HttpException(spec.body, spec.status);
  }

  private toHttpException(error: RateLimitUnavailableError, response: unknown): HttpException {
    const spec = error.toHttpResponse();
    const call = toHttpCall(undefined, response);
    for (const [name, value] of Object.entries(spec.headers ?? {})) call.setHeader(name, value);
    return new HttpException(spec.body, spec.status, { cause: error });
  }

  /** The handler's limiter (its own `@RateLimit`, else the class's), resolved once per handler. */
  private limiterFor(context: ExecutionContext): ResolvedLimiter | null {
    const handler = context.getHandler();
    const classRef = context.getClass();
    const cached = this.limiters.get(handler);
    if (cached && cached.classRef === classRef) return cached.limiter;
    const own = this.reflector.get<RateLimitMetadata | undefined>(RATE_LIMIT_METADATA, handler);
    const skipped = this.reflector.get<boolean | undefined>(SKIP_RATE_LIMIT_METADATA, handler) || (!own && this.reflector.get<boolean | undefined>(SKIP_RATE_LIMIT_METADATA, classRef));
    const metadata = skipped ? undefined : (own ?? this.reflector.get<RateLimitMetadata | undefined>(RATE_LIMIT_METADATA, classRef));
    const where = `${classRef.name}.${handler.name}`;
    const limiter = metadata ? resolveLimiter(metadata, where, own ? where : classRef.name) : null;
    this.limiters.set(handler, { classRef, limiter });
    return limiter;
  }
}
