import { ROUTE_ARGS_METADATA, RESPONSE_PASSTHROUGH_METADATA } from '@nestjs/common/constants.js';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import { type HttpCall, setResponseHeader } from '../core/advice/handler-call';
import type { AdvisedMethod } from '../core/advice/method-advice.interface';
import { UnsupportedHandlerError } from '../errors/unsupported-handler.error';
import { fingerprintOf } from './fingerprint';

// What this file reads and writes exists on both platforms: Express `req`/`res` and Fastify `request`/`reply`.
type PlatformRequest = {
  headers?: Record<string, string | string[] | undefined>;
  method?: string;
  originalUrl?: string;
  url?: string;
  body?: unknown;
};
type PlatformResponse = {
  statusCode?: number;
  status?: (code: number) => unknown;
  getHeader?: (name: string) => unknown;
};

/** A request header (lower-case name) on Express or Fastify. */
export function requestHeader(request: unknown, name: string): string | string[] | undefined {
  return (request as PlatformRequest | undefined)?.headers?.[name];
}

/**
 * The default fingerprint of an HTTP request: method, URL (path and query) and a canonical hash of the parsed body,
 * so the same key with another payload or on another path is refused (422).
 */
export function httpFingerprint(request: unknown): string {
  const req = request as PlatformRequest;
  return fingerprintOf(req.method ?? '', req.originalUrl ?? req.url ?? '', req.body);
}

/** The status the response will be sent with (Nest set it before the handler; the handler may have changed it). */
export function responseStatus(response: unknown): number {
  return (response as PlatformResponse).statusCode ?? 200;
}

/** The replayable response headers set so far (by `@Header()`, a middleware, or the handler). */
export function captureHeaders(response: unknown, names: readonly string[]): Record<string, string> | undefined {
  const getHeader = (response as PlatformResponse).getHeader;
  if (typeof getHeader !== 'function') return undefined;
  let headers: Record<string, string> | undefined;
  for (const name of names) {
    const value = getHeader.call(response, name);
    if (value === undefined || value === null) continue;
    (headers ??= {})[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return headers;
}

/** Replays a stored response's status and headers, and marks it replayed. */
export function applyReplay(
  http: HttpCall,
  status: number | undefined,
  headers: Readonly<Record<string, string>> | undefined,
  replayedHeader: string,
): void {
  const response = http.response as PlatformResponse;
  if (status !== undefined) {
    if (typeof response.status === 'function') response.status(status);
    else response.statusCode = status;
  }
  if (headers) for (const name of Object.keys(headers)) setResponseHeader(response, name, headers[name]);
  http.setHeader(replayedHeader, 'true');
}

// @nestjs/common's own enum (not re-exported by its root entry): route-argument keys are `<paramtype>:<index>`.
const RESPONSE_PARAM = String(RouteParamtypes.RESPONSE);
const NEXT_PARAM = String(RouteParamtypes.NEXT);

/**
 * Refuses, at startup, an HTTP handler that sends its own response (`@Res()` or `@Next()` without passthrough):
 * `@Idempotent` stores and replays what a handler returns, and such a handler returns nothing Nest sends.
 */
export function assertReplayableHandler(method: AdvisedMethod): void {
  const params = Reflect.getMetadata(ROUTE_ARGS_METADATA, method.classRef, method.methodName) as Record<string, unknown> | undefined;
  const sendsItself = Object.keys(params ?? {}).some((key) => {
    const type = key.split(':')[0];
    return type === RESPONSE_PARAM || type === NEXT_PARAM;
  });
  if (sendsItself && !Reflect.getMetadata(RESPONSE_PASSTHROUGH_METADATA, method.classRef, method.methodName)) {
    throw new UnsupportedHandlerError(
      method.className,
      method.methodName,
      'sends its own response (@Res() or @Next()), which @Idempotent cannot store or replay; return the body instead, or use @Res({ passthrough: true })',
    );
  }
}
