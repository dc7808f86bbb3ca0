import { type ArgumentsHost, type ExecutionContext, HttpException, IntrinsicException } from '@nestjs/common';
import { type HttpMappableError, type HttpResponseSpec, isHttpMappableError } from '../../errors/http-mappable';
import { type HttpCall, setResponseHeader } from './handler-call';

/**
 * How a library error that knows its answer (429 rate limited, 409 lock contention, 503 unavailable) reaches the
 * caller in each execution context — the one place that decides it, used by decorated handlers, the rate-limit
 * guard and the global exception filter:
 * - HTTP: an HttpException with the status, body and headers (`Retry-After`, `RateLimit` …);
 * - RPC: an RpcException whose error is `{ status, error, message, retryAfterMs }` (the ClientProxy caller's error);
 * - WebSocket: a WsException whose error is `{ status: 'error', code, error, message, retryAfterMs }` (the client's
 *   `exception` event);
 * - GraphQL: an error with `extensions: { code, status, retryAfterMs }` (code `RATE_LIMITED`, `CONFLICT` or
 *   `SERVICE_UNAVAILABLE`), and the headers on the HTTP response when the GraphQL context has one.
 * - a microservice event (no reply to carry an answer): the event is dropped, reported to `reportDrop` naming the
 *   handler, and the error becomes an `IntrinsicException`, which Nest's RPC exception handling does not log;
 * Anything else is returned unchanged.
 */
export function toContextError(error: unknown, context: ArgumentsHost, http?: HttpCall, reportDrop?: (message: string) => void): unknown {
  if (!isHttpMappableError(error)) return error;
  const spec = error.toHttpResponse();
  switch (context.getType<string>()) {
    case 'http':
      setHeaders(spec, http ? http.response : context.switchToHttp().getResponse());
      return new HttpException(spec.body, spec.status, { cause: error });
    case 'rpc': {
      if (isEventContext(context)) return droppedEvent(error, context, reportDrop);
      const { RpcException } = optionalPeer<{ RpcException: new (error: object) => Error }>('@nestjs/microservices');
      return new RpcException({ status: spec.status, error: error.name, message: messageOf(spec, error), retryAfterMs: spec.retryAfterMs });
    }
    case 'ws': {
      const { WsException } = optionalPeer<{ WsException: new (error: object) => Error }>('@nestjs/websockets');
      return new WsException({
        status: 'error',
        code: spec.status,
        error: error.name,
        message: messageOf(spec, error),
        retryAfterMs: spec.retryAfterMs,
      });
    }
    case 'graphql':
      setHeaders(spec, graphqlResponse(context));
      return new GraphQLContextError(error, spec);
    default:
      return error;
  }
}

/** The error code of a GraphQL answer, per HTTP status. */
const GRAPHQL_CODES: Readonly<Record<number, string>> = {
  429: 'RATE_LIMITED',
  409: 'CONFLICT',
  503: 'SERVICE_UNAVAILABLE',
  // A cached resolver whose loader ran past its hard timeout, with nothing to answer from.
  504: 'GATEWAY_TIMEOUT',
  // A malformed idempotency key (400) and a key reused with another payload (422) are the caller's input.
  400: 'BAD_USER_INPUT',
  422: 'BAD_USER_INPUT',
};

/**
 * A library error as a GraphQL resolver error. graphql-js copies `extensions` of the error a resolver throws into
 * the response, so the library needs no `graphql` import (the package is an optional peer).
 */
export class GraphQLContextError extends Error {
  /**
   * What graphql-js copies into the response error's `extensions`: `code` (`RATE_LIMITED`, `CONFLICT`,
   * `SERVICE_UNAVAILABLE`, `BAD_USER_INPUT`, else `INTERNAL_SERVER_ERROR`), the HTTP `status`, the library error's
   * class name as `error`, and `retryAfterMs` when the caller may retry.
   */
  readonly extensions: Readonly<Record<string, unknown>>;

  constructor(cause: HttpMappableError, spec: HttpResponseSpec) {
    super(messageOf(spec, cause), { cause });
    this.extensions = {
      code: GRAPHQL_CODES[spec.status] ?? 'INTERNAL_SERVER_ERROR',
      status: spec.status,
      error: cause.name,
      retryAfterMs: spec.retryAfterMs,
    };
  }

  /** The class name, as `error.name`. */
  override get name(): string {
    return this.constructor.name;
  }
}

/**
 * Whether a handler's context is a microservice event pattern, read with @nestjs/microservices' own exported metadata
 * key and handler-type enum (the package is loaded only once an RPC context exists, so it is installed).
 */
export function isEventContext(context: ArgumentsHost): context is ExecutionContext {
  // An exception filter's host has no handler: only a guard's or an interceptor's context can name one.
  const handler = context.getType<string>() === 'rpc' ? (context as Partial<ExecutionContext>).getHandler?.() : undefined;
  if (typeof handler !== 'function') return false;
  const { PATTERN_HANDLER_METADATA } = optionalPeer<{ PATTERN_HANDLER_METADATA: string }>('@nestjs/microservices/constants');
  const { PatternHandler } = optionalPeer<{ PatternHandler: { EVENT: unknown } }>('@nestjs/microservices/enums/pattern-handler.enum');
  return Reflect.getMetadata(PATTERN_HANDLER_METADATA, handler) === PatternHandler.EVENT;
}

/** An event denied by a decorator: nobody waits for an answer, so it is reported, never logged as an error. */
function droppedEvent(error: HttpMappableError, context: ExecutionContext, reportDrop?: (message: string) => void): IntrinsicException {
  reportDrop?.(`Event dropped by ${context.getClass().name}.${context.getHandler().name}: ${error.message}`);
  return new IntrinsicException(error.message, { cause: error });
}

function messageOf(spec: HttpResponseSpec, error: Error): string {
  return typeof spec.body.message === 'string' ? spec.body.message : error.message;
}

function setHeaders(spec: HttpResponseSpec, response: unknown): void {
  const headers = spec.headers;
  if (headers && response) for (const name of Object.keys(headers)) setResponseHeader(response, name, headers[name]);
}

/**
 * The HTTP response of a GraphQL operation, read by position (the library does not import @nestjs/graphql): the
 * third resolver argument is the GraphQL context — `{ req, res }` with Apollo on Express, `{ reply }` with Fastify.
 */
function graphqlResponse(context: ArgumentsHost): unknown {
  const gql = context.getArgByIndex<Record<string, unknown> | undefined>(2);
  return gql?.res ?? gql?.reply;
}

const peers = new Map<string, unknown>();

// The transport packages are optional peers: a context of their type exists only when they are installed, so they
// are loaded on the first error of that context rather than at import.
function optionalPeer<T>(name: string): T {
  let loaded = peers.get(name);
  if (!loaded) peers.set(name, (loaded = require(name)));
  return loaded as T;
}
