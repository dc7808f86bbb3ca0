import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { type HttpCall, PlatformHttpCall } from './http-call';

/** What the hidden parameter carries outside HTTP (RPC, WebSocket, GraphQL): nothing, but recognisably ours. */
const NOT_HTTP: unique symbol = Symbol('redis-patterns:not-http');

/**
 * A route parameter that Nest resolves to the request's {@link HttpCall} (or to {@link NOT_HTTP} in other
 * transports). Nest's router evaluates it with the handler's other parameters and passes it as one more argument,
 * which the decorated method's wrapper takes off before the advice and the method see the arguments.
 *
 * Why a parameter: the advice of a controller handler needs the response (to set `X-Cache`, rate-limit headers …).
 * Carrying it in an AsyncLocalStorage entered by a global interceptor turned on async hooks for the whole process
 * (every promise of every request paid for them) and cost an Observable per request; a parameter costs one
 * small object, and only on decorated handlers. A custom parameter with no pipes is assigned synchronously by Nest.
 */
const HttpCallParam = createParamDecorator((_data: unknown, context: ExecutionContext): HttpCall | typeof NOT_HTTP => {
  if (context.getType() !== 'http') return NOT_HTTP;
  const http = context.switchToHttp();
  return new PlatformHttpCall(http.getRequest(), http.getResponse());
});

/**
 * Declares the hidden parameter on a decorated method, after every parameter it declares, and returns its index.
 * Parameter decorators run before method decorators, so the method's own route parameters are known here.
 */
export function declareHttpCallParam(prototype: object, propertyKey: string | symbol, method: (...args: never[]) => unknown): number {
  const routeArgs = (Reflect.getMetadata(ROUTE_ARGS_METADATA, prototype.constructor, propertyKey) ?? {}) as Record<string, { index: number }>;
  const paramtypes = (Reflect.getMetadata('design:paramtypes', prototype, propertyKey) ?? []) as unknown[];
  let index = Math.max(method.length, paramtypes.length);
  for (const key of Object.keys(routeArgs)) index = Math.max(index, routeArgs[key].index + 1);
  HttpCallParam()(prototype, propertyKey, index);
  return index;
}

/**
 * Takes the hidden parameter off the arguments of a call (when the caller is Nest) and returns the HTTP call it
 * carries. A direct call (`service.method(a, b)`) has no such argument and is left untouched.
 */
export function takeHttpCall(args: unknown[], index: number): HttpCall | undefined {
  if (args.length !== index + 1) return undefined;
  const last = args[index];
  if (last === NOT_HTTP) {
    args.length = index;
    return undefined;
  }
  if (last instanceof PlatformHttpCall) {
    args.length = index;
    return last;
  }
  return undefined;
}
