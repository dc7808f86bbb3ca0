import type { ExecutionContext } from '@nestjs/common';

/** How Nest calls a handler: `ExecutionContext.getType()`. */
export type HandlerKind = 'http' | 'rpc' | 'ws' | 'graphql';

/** The HTTP request a controller handler is serving, as seen by the advice around it. */
export interface HttpCall {
  readonly request: unknown;
  readonly response: unknown;
  /** Sets a response header, on Express and on Fastify. */
  setHeader(name: string, value: string | number): void;
}

type PlatformResponse = {
  setHeader?: (name: string, value: string) => void;
  header?: (name: string, value: string) => void;
  headersSent?: boolean;
  sent?: boolean;
};

/** The {@link HttpCall} of an HTTP handler over the platform response (Express `res` or Fastify `reply`). */
export function httpCallOf(context: ExecutionContext): HttpCall | undefined {
  if (context.getType() !== 'http') return undefined;
  const http = context.switchToHttp();
  const response = http.getResponse<unknown>();
  return { request: http.getRequest<unknown>(), response, setHeader: (name, value) => setResponseHeader(response, name, value) };
}

/** Sets a header on an Express `res` or a Fastify `reply` (a no-op once the headers are sent). */
export function setResponseHeader(response: unknown, name: string, value: string | number): void {
  const res = response as PlatformResponse | undefined;
  if (!res || res.headersSent || res.sent) return;
  if (typeof res.setHeader === 'function') res.setHeader(name, String(value));
  else if (typeof res.header === 'function') res.header(name, String(value));
}

/**
 * What every decorator's key functions on a handler receive first, per transport: the HTTP request, the RPC payload,
 * the WebSocket client, the GraphQL request (its context's `req` on Apollo or Express, `reply.request` on Mercurius,
 * else the context). The second argument is the ExecutionContext.
 */
export function requestOf(context: ExecutionContext): unknown {
  switch (context.getType<string>()) {
    case 'http':
      return context.switchToHttp().getRequest();
    case 'graphql': {
      const gql = context.getArgByIndex<{ req?: unknown; request?: unknown; reply?: { request?: unknown } } | undefined>(2);
      return gql?.req ?? gql?.request ?? gql?.reply?.request ?? gql;
    }
    default:
      // RPC: the payload; WebSocket: the client socket.
      return context.getArgByIndex(0);
  }
}

/**
 * The data of a handler call, which identifies it in a default cache key or idempotency fingerprint: the HTTP
 * method and URL, the RPC payload, the WebSocket message, the GraphQL parent and arguments. Never the socket, the
 * RPC context or the GraphQL context, which differ on every call.
 */
export function handlerData(context: ExecutionContext): unknown[] {
  switch (context.getType<string>()) {
    case 'rpc':
      return [context.getArgByIndex(0)];
    case 'ws':
      return [context.getArgByIndex(1)];
    case 'graphql':
      return [context.getArgByIndex(0), context.getArgByIndex(1)];
    default: {
      const request = context.switchToHttp().getRequest<{ method?: string; originalUrl?: string; url?: string }>();
      return [request.method, request.originalUrl ?? request.url];
    }
  }
}
