import { AsyncLocalStorage } from 'node:async_hooks';

/** The HTTP request a controller handler is serving, as seen by the advice around it. */
export interface HttpCall {
  readonly request: unknown;
  readonly response: unknown;
  /** Sets a response header, on Express and on Fastify. */
  setHeader(name: string, value: string | number): void;
}

/** Carries the current HTTP call from the edge interceptor into the advice chain of the handler. */
export const httpCallStorage = new AsyncLocalStorage<HttpCall>();

/** Wraps a platform response (Express `res` or Fastify `reply`). */
export function toHttpCall(request: unknown, response: unknown): HttpCall {
  return {
    request,
    response,
    setHeader(name, value) {
      const res = response as { setHeader?: (n: string, v: string) => void; header?: (n: string, v: string) => void; headersSent?: boolean; sent?: boolean };
      if (res.headersSent || res.sent) return;
      if (typeof res.setHeader === 'function') res.setHeader(name, String(value));
      else if (typeof res.header === 'function') res.header(name, String(value));
    },
  };
}
