/** The HTTP answer a domain error maps to at the edge (status, headers, JSON body). */
export interface HttpResponseSpec {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body: Record<string, unknown>;
}

/**
 * A domain error that knows its HTTP answer (e.g. a lock contention → 409 with Retry-After). Thrown from a
 * decorated controller handler, it is turned into that response by the module's HTTP edge interceptor; thrown
 * from a provider method, it stays a plain typed error.
 */
export interface HttpMappableError extends Error {
  toHttpResponse(): HttpResponseSpec;
}

export function isHttpMappableError(error: unknown): error is HttpMappableError {
  return error instanceof Error && typeof (error as Partial<HttpMappableError>).toHttpResponse === 'function';
}
