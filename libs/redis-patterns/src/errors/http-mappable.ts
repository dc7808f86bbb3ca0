/** The HTTP answer a domain error maps to at the edge (status, headers, JSON body). */
export interface HttpResponseSpec {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body: Record<string, unknown>;
}

/**
 * A domain error that knows its HTTP answer (e.g. a lock contention → 409 with Retry-After). Thrown on an HTTP
 * request — by a decorated handler, or by a decorated provider under any handler — it becomes that response; in a
 * provider called elsewhere it stays a plain typed error.
 */
export interface HttpMappableError extends Error {
  toHttpResponse(): HttpResponseSpec;
}

/**
 * Base class of the library's errors that map to an HTTP answer. The module's global exception filter catches this
 * class (so it costs nothing on the success path, unlike a global interceptor).
 */
export abstract class HttpMappableDomainError extends Error implements HttpMappableError {
  abstract toHttpResponse(): HttpResponseSpec;
}

export function isHttpMappableError(error: unknown): error is HttpMappableError {
  return error instanceof Error && typeof (error as Partial<HttpMappableError>).toHttpResponse === 'function';
}
