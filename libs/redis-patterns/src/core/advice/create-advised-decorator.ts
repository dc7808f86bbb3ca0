import { type Type, UseInterceptors } from '@nestjs/common';
import { INTERCEPTORS_METADATA } from '@nestjs/common/constants.js';
import { METHOD_ADVICE, ORIGINAL_METHOD } from './advice.constants';
import { resolveBoundMethod } from './advice-bindings';
import type { AdviceDeclaration, MethodAdvisor } from './method-advice.interface';
import { isControllerClass } from './discover-methods';
import { isControllerInstance, takenBy } from './nest-handler-calls';
import { interceptorFor, isRedisPatternsInterceptor } from './redis-patterns.interceptor';

type AnyMethod = (...args: any[]) => any;

/**
 * Builds a method decorator whose behaviour is supplied by `advisor` (a provider of the module), in both of the ways
 * a method is called:
 *
 * - by Nest, as a handler (an HTTP route, a message or event pattern, a gateway message, a resolver): through
 *   `RedisPatternsInterceptor`, which the decorator puts on the method (once, however many decorators it
 *   carries), in the order of the application's interceptors and with Nest's ExecutionContext;
 * - by any other code, on a provider (`service.method(...)`, a scheduler, an event listener): through a wrapper that
 *   replaces the method at class-definition time and runs the same behaviour around it.
 *
 * The wrapper knows Nest's calls (see nest-handler-calls.ts) and then only runs the method, so a handler's behaviour
 * runs once. Route and other metadata of the method are copied to the wrapper whatever the decorator order. On a
 * controller, whose methods only Nest calls, the wrapper comes off once the class is defined: the handler Nest sees
 * is the method itself, with every piece of metadata, and its interceptor or guard. Stacked redis-patterns decorators
 * share one wrapper and one interceptor; the topmost runs outermost.
 */
export function createAdvisedDecorator<TOptions>(
  advisor: Type<MethodAdvisor<TOptions>>,
  options: TOptions,
  guardOnHandlers = false,
): MethodDecorator {
  return (target, propertyKey, descriptor) => {
    const current = descriptor.value as unknown as AnyMethod;
    if (typeof current !== 'function')
      throw new TypeError(`${String(propertyKey)} is not a method: redis-patterns decorators apply to methods.`);
    const declaration: AdviceDeclaration<TOptions> = { advisor, options, guardOnHandlers };
    const existing = Reflect.getMetadata(METHOD_ADVICE, current) as AdviceDeclaration[] | undefined;
    if (existing && (current as unknown as Record<symbol, unknown>)[ORIGINAL_METHOD]) {
      // Decorators apply bottom-up: this one is written above the previous ones, so it goes first (outermost).
      Reflect.defineMetadata(METHOD_ADVICE, [declaration, ...existing], current);
      return descriptor;
    }
    const methodName = String(propertyKey);
    const wrapper = function (this: object, ...args: unknown[]): unknown {
      // Nest's call of a handler: its interceptor (or guard) applied the behaviour already.
      if (isControllerInstance(this) || takenBy(wrapper)) return current.apply(this, args);
      try {
        return resolveBoundMethod(this, methodName)(this, args);
      } catch (error) {
        return Promise.reject(error);
      }
    };
    Object.defineProperty(wrapper, 'name', { value: current.name });
    Object.defineProperty(wrapper, ORIGINAL_METHOD, { value: current });
    for (const key of Reflect.getMetadataKeys(current)) {
      Reflect.defineMetadata(key, Reflect.getMetadata(key, current), wrapper);
    }
    Reflect.defineMetadata(METHOD_ADVICE, [declaration], wrapper);
    (descriptor as unknown as TypedPropertyDescriptor<AnyMethod>).value = wrapper;
    const interceptors = (Reflect.getMetadata(INTERCEPTORS_METADATA, wrapper) as unknown[] | undefined) ?? [];
    if (!interceptors.some(isRedisPatternsInterceptor)) {
      UseInterceptors(interceptorFor(target.constructor.name, methodName))(target, propertyKey, descriptor);
      // Whether the class is a controller is known once its class decorators ran: right after its methods'
      // decorators, in the same class definition, so before this microtask and long before Nest reads the metadata.
      queueMicrotask(() => {
        if (!isControllerClass(target.constructor)) return;
        dropUnneededInterceptor(unwrapHandler(target, propertyKey, wrapper, current));
      });
    }
    return descriptor;
  };
}

/**
 * Gives a controller its own method back: Nest calls a controller's methods only as handlers, where the interceptor
 * and guard apply the behaviour, so the wrapper would only run the method. The method takes every piece of metadata
 * the wrapper holds (its own, copied there, and what decorators written above ours put on the wrapper: route,
 * interceptors, guards, Swagger). Returns the handler Nest will see: the method, or the wrapper when another
 * decorator has wrapped it in turn (the wrapper then only runs the method, see nest-handler-calls.ts).
 */
function unwrapHandler(target: object, propertyKey: string | symbol, wrapper: AnyMethod, method: AnyMethod): AnyMethod {
  const own = Object.getOwnPropertyDescriptor(target, propertyKey);
  if (own?.value !== wrapper) return wrapper;
  for (const key of Reflect.getOwnMetadataKeys(wrapper)) Reflect.defineMetadata(key, Reflect.getOwnMetadata(key, wrapper), method);
  Object.defineProperty(target, propertyKey, { ...own, value: method });
  return method;
}

/**
 * Takes the module's interceptor off a controller handler whose decorators all act through guards (`@RateLimit`):
 * Nest calls it only as a handler, where the guard decides, so the interceptor would only add Nest's interceptor
 * pipeline to every request. On a gateway or a resolver it stays: it tells the wrapper which call is Nest's.
 */
function dropUnneededInterceptor(handler: AnyMethod): void {
  const declarations = (Reflect.getMetadata(METHOD_ADVICE, handler) as AdviceDeclaration[] | undefined) ?? [];
  if (!declarations.every((declaration) => declaration.guardOnHandlers)) return;
  const interceptors = (Reflect.getOwnMetadata(INTERCEPTORS_METADATA, handler) as unknown[] | undefined) ?? [];
  Reflect.defineMetadata(
    INTERCEPTORS_METADATA,
    interceptors.filter((interceptor) => !isRedisPatternsInterceptor(interceptor)),
    handler,
  );
}
