import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { HandlerCall, PlatformHttpCall } from './handler-call';
import type { HandlerKind } from './handler-kind';

interface ParamOptions {
  readonly kind: HandlerKind;
  readonly rawArgs: boolean;
}

/**
 * A parameter that Nest resolves to the call's {@link HandlerCall}. Nest's router (and its RPC, WebSocket and
 * GraphQL counterparts) evaluates it with the handler's other parameters and passes it as one more argument, which
 * the decorated method's wrapper takes off before the advice and the method see the arguments.
 *
 * Why a parameter: the advice needs the call's execution context (to set `X-Cache`, to identify a WebSocket client,
 * to answer an RPC caller in its own form). Carrying it in an AsyncLocalStorage entered by a global interceptor
 * turned on async hooks for the whole process (every promise of every request paid for them) and cost an
 * Observable per request; a parameter costs one small object, and only on decorated handlers. A custom parameter
 * with no pipes is assigned synchronously by Nest.
 */
const HandlerCallParam = createParamDecorator((options: ParamOptions, context: ExecutionContext): HandlerCall => {
  if (options.kind !== 'http') return new HandlerCall(options.kind, context, options.rawArgs);
  const http = context.switchToHttp();
  return new PlatformHttpCall(context, http.getRequest(), http.getResponse());
});

type ParamMetadata = Record<string, { index: number; data?: unknown; pipes?: unknown[] }>;

// What Nest passes an undecorated handler of each kind: it maps the raw arguments through these entries when a
// method has no parameter metadata of its own (@nestjs/microservices and @nestjs/websockets' DEFAULT_CALLBACK_METADATA:
// `<param type>:<index>`; RPC payload 3; WebSocket socket 0, payload 3, ack 13). Declaring the hidden parameter
// creates metadata, so these are declared with it, and the method still receives what it would undecorated, through
// the same pipes. GraphQL passes its raw arguments, HTTP none.
const DEFAULT_PARAMS: Readonly<Partial<Record<HandlerKind, ParamMetadata>>> = {
  rpc: { '3:0': { index: 0, data: undefined, pipes: [] } },
  'rpc-event': { '3:0': { index: 0, data: undefined, pipes: [] } },
  ws: {
    '0:0': { index: 0, data: undefined, pipes: [] },
    '3:1': { index: 1, data: undefined, pipes: [] },
    '13:2': { index: 2, data: undefined, pipes: [] },
  },
};

/**
 * Declares the hidden parameter on a decorated handler of `kind`, after every parameter Nest would pass it. Runs at
 * module instantiation: after every class decorator (so the kind is known), before Nest reads parameter metadata
 * (routers, microservice listeners, gateways and resolvers are set up after every provider exists).
 */
export function declareHandlerCallParam(declaringPrototype: object, methodName: string, kind: HandlerKind): void {
  const classRef = declaringPrototype.constructor;
  const own = Reflect.getMetadata(ROUTE_ARGS_METADATA, classRef, methodName) as ParamMetadata | undefined;
  const declared = own && Object.keys(own).length > 0;
  const metadata: ParamMetadata = declared ? own : { ...(DEFAULT_PARAMS[kind] ?? {}) };
  let index = 0;
  for (const key of Object.keys(metadata)) index = Math.max(index, metadata[key].index + 1);
  if (!declared) Reflect.defineMetadata(ROUTE_ARGS_METADATA, metadata, classRef, methodName);
  const options: ParamOptions = { kind, rawArgs: !declared && kind === 'graphql' };
  HandlerCallParam(options)(declaringPrototype, methodName, index);
}

/**
 * Takes the hidden argument off a call's arguments (when Nest is the caller) and returns the call it carries; a
 * direct call (`service.method(a, b)`) has none and is left untouched.
 */
export function takeHandlerCall(args: unknown[]): HandlerCall | undefined {
  const last = args[args.length - 1];
  if (!(last instanceof HandlerCall)) return undefined;
  args.length--;
  if (last.rawArgs) args.push(...last.context.getArgs());
  return last;
}
