/**
 * The answer a domain error maps to at the edge: an HTTP status, headers and JSON body, and when to retry. Other
 * transports (RPC, WebSocket, GraphQL) carry the status, the message and `retryAfterMs` in their own form.
 */
export interface HttpResponseSpec {
  /** The HTTP status code (e.g. 409, 429, 503). */
  readonly status: number;
  /** Response headers to set (`Retry-After` in seconds, `RateLimit` …); none when absent. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The JSON body: `{ statusCode, error, message }`, with `retryAfterMs` when the caller may retry. */
  readonly body: Record<string, unknown>;
  /** When the caller may retry, in ms (rate limits, lock contention, outages). */
  readonly retryAfterMs?: number;
}

/**
 * A domain error that knows its answer (e.g. a lock contention → 409 with Retry-After). Thrown in a handler — by a
 * decorated handler, or by a decorated provider under any handler — it becomes that answer in the handler's
 * transport (HTTP, RPC, WebSocket, GraphQL); in a provider called elsewhere it stays a plain typed error.
 */
export interface HttpMappableError extends Error {
  /** The answer this error maps to; called when the error reaches the edge of a handler. */
  toHttpResponse(): HttpResponseSpec;
}

/**
 * Base class for an application's own errors that map to an answer the way the library's do (the library's errors
 * extend `RedisPatternsError`). The module's global exception filter catches this class (so it costs nothing on the
 * success path, unlike a global interceptor).
 */
export abstract class HttpMappableDomainError extends Error implements HttpMappableError {
  /** The answer this error maps to; implement it to choose the status, headers and body. */
  abstract toHttpResponse(): HttpResponseSpec;
}

export function isHttpMappableError(error: unknown): error is HttpMappableError {
  return error instanceof Error && typeof (error as Partial<HttpMappableError>).toHttpResponse === 'function';
}
