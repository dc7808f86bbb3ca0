import type { Type } from '@nestjs/common';
import { RedisPatternsNotBoundError } from '../../errors/redis-patterns-not-bound.error';
import type { BoundMethod } from './compose-advice';

/** Prepares the advice chains of an instance; implemented by the module's explorer, one per application. */
export interface AdviceRuntime {
  /** Whether this runtime's application created `instance` (a request-scoped or transient provider of its own). */
  owns(instance: object): boolean;
  bind(instance: object, classRef: Type<unknown>): Map<string, BoundMethod>;
}

// Keyed by instance, not by class: two applications in one process (three app instances in a test) each bind
// their own providers to their own module.
const bindings = new WeakMap<object, Map<string, BoundMethod>>();
const runtimes = new Set<AdviceRuntime>();

export function registerRuntime(runtime: AdviceRuntime): void {
  runtimes.add(runtime);
}

export function unregisterRuntime(runtime: AdviceRuntime): void {
  runtimes.delete(runtime);
}

export function bindInstance(instance: object, methods: Map<string, BoundMethod>): void {
  bindings.set(instance, methods);
}

/**
 * The bound method for a call. Instances the explorer did not see at startup (request-scoped or transient
 * providers) are bound on first use to the application that created them; an instance no running application
 * owns fails — a decorated method never runs without its behaviour, nor with another application's.
 */
export function resolveBoundMethod(instance: object, methodName: string): BoundMethod {
  let methods = bindings.get(instance);
  if (!methods) {
    methods = bindLate(instance, methodName);
  }
  const method = methods.get(methodName);
  if (!method)
    throw new RedisPatternsNotBoundError(instance.constructor.name, methodName, 'its class was not prepared by RedisPatternsModule');
  return method;
}

function bindLate(instance: object, methodName?: string): Map<string, BoundMethod> {
  const owners = [...runtimes].filter((runtime) => runtime.owns(instance));
  if (owners.length !== 1) {
    // No owner: the application that created the instance has no RedisPatternsModule (whatever else runs in this
    // process). Several: the same request-scoped class in several applications, and nothing tells which one.
    const reason =
      owners.length === 0
        ? undefined
        : 'several applications in this process provide this request-scoped class and run RedisPatternsModule';
    throw new RedisPatternsNotBoundError(instance.constructor.name, methodName, reason);
  }
  const methods = owners[0].bind(instance, instance.constructor as Type<unknown>);
  bindings.set(instance, methods);
  return methods;
}
