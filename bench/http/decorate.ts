/**
 * Applies method decorators to `target.prototype[method]` the way TypeScript's `@a @b m()` does (the last one
 * first), so a controller can use decorators looked up at run time (the library's, when it has them).
 */
export function decorateMethod(target: { prototype: object }, method: string, decorators: MethodDecorator[]): void {
  const proto = target.prototype as Record<string, unknown>;
  const descriptor = Object.getOwnPropertyDescriptor(proto, method)!;
  const decorated = Reflect.decorate(decorators, proto, method, descriptor) as PropertyDescriptor | undefined;
  Object.defineProperty(proto, method, decorated ?? descriptor);
}
