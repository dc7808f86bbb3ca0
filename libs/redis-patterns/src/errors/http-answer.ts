import type { HttpResponseSpec } from './http-mappable';

const REASON_PHRASES: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  409: 'Conflict',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** `Retry-After` in whole seconds, at least 1: the header has no fractions, and 0 would invite an immediate retry. */
export function retryAfterSeconds(retryAfterMs: number): string {
  return String(Math.max(1, Math.ceil(retryAfterMs / 1000)));
}

/**
 * The answer of a library error, in the one shape all of them share: the body `{ statusCode, error, message }`, and
 * when the caller may retry, `retryAfterMs` in the body with `Retry-After` (seconds) in the headers — so a client
 * reads a 409, a 429 and a 503 the same way. `headers` adds others (`RateLimit` …).
 */
export function httpAnswer(
  status: number,
  message: string,
  options: { readonly retryAfterMs?: number; readonly headers?: Readonly<Record<string, string>> } = {},
): HttpResponseSpec {
  const { retryAfterMs, headers = {} } = options;
  const body = { statusCode: status, error: REASON_PHRASES[status] ?? 'Error', message };
  if (retryAfterMs === undefined) return { status, ...(Object.keys(headers).length > 0 ? { headers } : {}), body };
  return {
    status,
    headers: { ...headers, 'Retry-After': retryAfterSeconds(retryAfterMs) },
    body: { ...body, retryAfterMs },
    retryAfterMs,
  };
}
