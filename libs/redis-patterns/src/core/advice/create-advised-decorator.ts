import type { Type } from '@nestjs/common';
import { BOOTSTRAP_CHECK_INSTALLED, METHOD_ADVICE, ORIGINAL_METHOD } from './advice.constants';
import { assertBound, resolveBoundMethod } from './advice-bindings';
import { takeHandlerCall } from './handler-call-param';
import type { AdviceDeclaration, MethodAdvisor } from './method-advice.interface';

type AnyMethod = (...args: any[]) => any;

/**
 * Builds a method decorator whose behaviour is supplied, at bootstrap, by `advisor` (a provider of the module).
 *
 * The decorator replaces the method with a wrapper at class-definition time, so the behaviour applies wherever
 * the method is called from: by Nest's router on a controller (with the arguments its pipes resolved) or by other
 * code on a provider. Route and other metadata of the original method are copied to the wrapper whatever the
 * decorator order. Stacked redis-patterns decorators share one wrapper; the topmost runs outermost. On a handler
 * (HTTP route, message or event pattern, gateway message, resolver), the wrapper also receives the call's execution
 * context through a hidden parameter that the module declares at startup (never seen by the method).
 */
export function createAdvisedDecorator<TOptions>(advisor: Type<MethodAdvisor<TOptions>>, options: TOptions): MethodDecorator {
  return (target, propertyKey, descriptor) => {
    const current = descriptor.value as unknown as AnyMethod;
    if (typeof current !== 'function')
      throw new TypeError(`${String(propertyKey)} is not a method: redis-patterns decorators apply to methods.`);
    const declaration: AdviceDeclaration<TOptions> = { advisor, options };
    const existing = Reflect.getMetadata(METHOD_ADVICE, current) as AdviceDeclaration[] | undefined;
    if (existing && (current as unknown as Record<symbol, unknown>)[ORIGINAL_METHOD]) {
      // Decorators apply bottom-up: this one is written above the previous ones, so it goes first (outermost).
      Reflect.defineMetadata(METHOD_ADVICE, [declaration, ...existing], current);
      return descriptor;
    }
    const methodName = String(propertyKey);
    const wrapper = function (this: object, ...args: unknown[]): Promise<unknown> {
      try {
        // When Nest calls a handler, it passes the call as one more argument (see handler-call-param.ts).
        const call = takeHandlerCall(args);
        return resolveBoundMethod(this, methodName)(this, args, call);
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
    installBootstrapCheck(target);
    return descriptor;
  };
}

/** Whether `method` is the wrapper of a redis-patterns decorator. */
export function isAdvisedWrapper(method: unknown): boolean {
  return (
    typeof method === 'function' &&
    Reflect.hasOwnMetadata(METHOD_ADVICE, method) &&
    !!(method as unknown as Record<symbol, unknown>)[ORIGINAL_METHOD]
  );
}

/** The undecorated method behind a wrapper (the wrapper itself when it is not one). */
export function originalMethod(method: AnyMethod): AnyMethod {
  return (method as unknown as Record<symbol, AnyMethod>)[ORIGINAL_METHOD] ?? method;
}

/**
 * Nest calls `onApplicationBootstrap` on every provider and controller after every module's `onModuleInit`, where
 * the module binds decorated instances. Chaining a check into it makes an application without the module fail at
 * startup with a clear error instead of at the first call.
 */
function installBootstrapCheck(prototype: object): void {
  if (Object.prototype.hasOwnProperty.call(prototype, BOOTSTRAP_CHECK_INSTALLED)) return;
  Object.defineProperty(prototype, BOOTSTRAP_CHECK_INSTALLED, { value: true });
  const own = prototype as { onApplicationBootstrap?: (...args: unknown[]) => unknown };
  const previous = own.onApplicationBootstrap;
  own.onApplicationBootstrap = function (this: object, ...args: unknown[]) {
    assertBound(this);
    return previous?.apply(this, args);
  };
}
