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

/**
 * An {@link HttpCall} over a platform response (Express `res` or Fastify `reply`). A class rather than an object
 * literal with closures: one is created per decorated request, so it should cost one small allocation.
 */
export class PlatformHttpCall implements HttpCall {
  constructor(
    readonly request: unknown,
    readonly response: unknown,
  ) {}

  setHeader(name: string, value: string | number): void {
    const res = this.response as PlatformResponse;
    if (res.headersSent || res.sent) return;
    if (typeof res.setHeader === 'function') res.setHeader(name, String(value));
    else if (typeof res.header === 'function') res.header(name, String(value));
  }
}

/** Wraps a platform response (Express `res` or Fastify `reply`). */
export function toHttpCall(request: unknown, response: unknown): HttpCall {
  return new PlatformHttpCall(request, response);
}
