import type { Type } from '@nestjs/common';
import { RedisPatternsNotBoundError } from '../../errors/redis-patterns-not-bound.error';
import type { HttpCall } from './http-call';
import type { MethodInvocation } from './method-advice.interface';

/**
 * Runs one decorated method of one instance: its advice chain around the original method. `http` is the request a
 * controller handler serves when Nest's router called it.
 */
export type BoundMethod = (instance: object, args: unknown[], http: HttpCall | undefined) => Promise<unknown>;

/** Prepares the advice chains of an instance; implemented by the module's explorer. */
export interface AdviceRuntime {
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
 * The bound method for a call. Instances the explorer did not see (request-scoped or transient providers) are
 * bound on first use when exactly one application runs the module; otherwise the call fails — a decorated method
 * never runs without its behaviour.
 */
export function resolveBoundMethod(instance: object, methodName: string): BoundMethod {
  let methods = bindings.get(instance);
  if (!methods) {
    methods = bindLate(instance, methodName);
  }
  const method = methods.get(methodName);
  if (!method) throw new RedisPatternsNotBoundError(instance.constructor.name, methodName, 'its class was not prepared by RedisPatternsModule');
  return method;
}

/** Fails application startup when a class with decorated methods was bootstrapped without the module. */
export function assertBound(instance: object): void {
  if (!bindings.has(instance)) bindLate(instance);
}

function bindLate(instance: object, methodName?: string): Map<string, BoundMethod> {
  if (runtimes.size !== 1) {
    const reason =
      runtimes.size === 0
        ? undefined
        : 'several applications in this process run RedisPatternsModule and this instance was not discovered by any (is it request-scoped?)';
    throw new RedisPatternsNotBoundError(instance.constructor.name, methodName, reason);
  }
  const [runtime] = runtimes;
  const methods = runtime.bind(instance, instance.constructor as Type<unknown>);
  bindings.set(instance, methods);
  return methods;
}

export type { MethodInvocation };
