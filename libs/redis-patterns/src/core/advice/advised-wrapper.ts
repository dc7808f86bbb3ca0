import { METHOD_ADVICE, ORIGINAL_METHOD } from './advice.constants';

type AnyMethod = (...args: any[]) => any;

/** Whether `method` is the wrapper of a redis-patterns decorator. */
export function isAdvisedWrapper(method: unknown): boolean {
  return (
    typeof method === 'function' &&
    Reflect.hasOwnMetadata(METHOD_ADVICE, method) &&
    !!(method as unknown as Record<symbol, unknown>)[ORIGINAL_METHOD]
  );
}

/**
 * Whether `method` carries redis-patterns decorators: a provider's wrapper, or a controller's own method, which keeps
 * the decorators' metadata once its wrapper is taken off (see create-advised-decorator.ts).
 */
export function isAdvisedMethod(method: unknown): boolean {
  return typeof method === 'function' && Reflect.hasOwnMetadata(METHOD_ADVICE, method);
}

/** The undecorated method behind a wrapper (the wrapper itself when it is not one). */
export function originalMethod(method: AnyMethod): AnyMethod {
  return (method as unknown as Record<symbol, AnyMethod>)[ORIGINAL_METHOD] ?? method;
}
