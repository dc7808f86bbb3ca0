import type { ExecutionContext } from '@nestjs/common';
import type { HandlerKind } from './handler-kind';

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

// Which of the handler's raw arguments (`context.getArgs()`) carry the caller's data rather than the transport:
// RPC (payload, context), gRPC (payload, metadata, call), WebSocket (client, data, ack), GraphQL (parent, args,
// context, info). HTTP's request, response and next are all transport.
const DATA_ARGS: Readonly<Record<HandlerKind, readonly number[]>> = {
  http: [],
  rpc: [0],
  'rpc-event': [0],
  grpc: [0],
  ws: [1],
  graphql: [0, 1],
};

/**
 * One call of a decorated handler by Nest (in any transport), handed to the method's wrapper as a hidden last
 * argument (see handler-call-param.ts). Created by Nest's parameter machinery, so it costs one small object per
 * decorated call and nothing elsewhere.
 */
export class HandlerCall {
  constructor(
    readonly kind: HandlerKind,
    readonly context: ExecutionContext,
    /** True when the method declares no parameters of its own and receives Nest's raw arguments (GraphQL). */
    readonly rawArgs: boolean,
  ) {}

  /** The HTTP request being served (HTTP handlers only). */
  get http(): HttpCall | undefined {
    return undefined;
  }
}

/**
 * Whether `value` is one of the transport's objects of a handler call (socket, RPC context, GraphQL context or
 * info, HTTP request or response) rather than data of the call: those never identify a call in a default cache key.
 */
export function isTransportArgument(kind: HandlerKind, context: ExecutionContext, value: unknown): boolean {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return false;
  const raw = context.getArgs();
  const data = DATA_ARGS[kind];
  for (let i = 0; i < raw.length; i++) if (raw[i] === value && !data.includes(i)) return true;
  return false;
}

/**
 * The {@link HandlerCall} of an HTTP handler: it is also the {@link HttpCall} over the platform response (Express
 * `res` or Fastify `reply`).
 */
export class PlatformHttpCall extends HandlerCall implements HttpCall {
  constructor(
    context: ExecutionContext,
    readonly request: unknown,
    readonly response: unknown,
  ) {
    super('http', context, false);
  }

  override get http(): HttpCall {
    return this;
  }

  setHeader(name: string, value: string | number): void {
    setResponseHeader(this.response, name, value);
  }
}

/** Sets a header on an Express `res` or a Fastify `reply` (a no-op once the headers are sent). */
export function setResponseHeader(response: unknown, name: string, value: string | number): void {
  const res = response as PlatformResponse | undefined;
  if (!res || res.headersSent || res.sent) return;
  if (typeof res.setHeader === 'function') res.setHeader(name, String(value));
  else if (typeof res.header === 'function') res.header(name, String(value));
}
