import { Injectable, type OnApplicationShutdown, type OnModuleInit, type Type } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, ModuleRef } from '@nestjs/core';
import { METHOD_ADVICE } from './advice.constants';
import { type AdviceRuntime, bindInstance, type BoundMethod, registerRuntime, unregisterRuntime } from './advice-bindings';
import { originalMethod } from './create-advised-decorator';
import { discoverMethods, isControllerClass } from './discover-methods';
import { toHttpError } from './http-error-mapping';
import { type AdviceDeclaration, type AdvisedMethod, type MethodAdvice, type MethodInvocation, PROCEED } from './method-advice.interface';

/**
 * Binds every decorated method of every provider and controller to its advice chain at module init, so that
 * invalid decorator options fail startup and calls need no lookup beyond one WeakMap read.
 */
@Injectable()
export class MethodAdviceExplorer implements OnModuleInit, OnApplicationShutdown, AdviceRuntime {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly moduleRef: ModuleRef,
  ) {}

  onModuleInit(): void {
    const byInstance = new Map<object, Type<unknown>>();
    for (const found of discoverMethods(this.discovery, this.scanner, hasAdvice)) byInstance.set(found.instance, found.classRef);
    for (const [instance, classRef] of byInstance) bindInstance(instance, this.bind(instance, classRef));
    // Only once every method is bound: an application whose decorator options fail startup must not become the
    // runtime that late-bound instances of other applications in this process fall back to.
    registerRuntime(this);
  }

  onApplicationShutdown(): void {
    unregisterRuntime(this);
  }

  /** Prepares the advice chain of every decorated method of one instance. */
  bind(instance: object, classRef: Type<unknown>): Map<string, BoundMethod> {
    const methods = new Map<string, BoundMethod>();
    const isController = isControllerClass(classRef);
    for (const methodName of this.scanner.getAllMethodNames(Object.getPrototypeOf(instance))) {
      const wrapper = (instance as Record<string, unknown>)[methodName];
      if (typeof wrapper !== 'function' || !hasAdvice(wrapper as (...a: unknown[]) => unknown)) continue;
      const declarations = Reflect.getMetadata(METHOD_ADVICE, wrapper) as AdviceDeclaration[];
      const method: AdvisedMethod = { classRef, className: classRef.name, methodName, isController };
      const advices = declarations.map(({ advisor, options }) => this.moduleRef.get(advisor, { strict: false }).prepare(options, method));
      methods.set(methodName, compose(advices, originalMethod(wrapper as (...a: unknown[]) => unknown), method));
    }
    return methods;
  }
}

function hasAdvice(method: (...args: unknown[]) => unknown): boolean {
  return Reflect.hasOwnMetadata(METHOD_ADVICE, method);
}

/**
 * Folds the advices into one function once, at bootstrap, so a call allocates only its invocation object.
 * Pass-through advices ({@link PROCEED}) are left out. On HTTP, a domain error that knows its HTTP answer becomes
 * that HttpException here, with its headers, so a decorated handler needs nothing else in the request path.
 */
function compose(advices: MethodAdvice[], original: (...args: unknown[]) => unknown, method: AdvisedMethod): BoundMethod {
  let run = (invocation: MethodInvocation): Promise<unknown> => {
    try {
      return Promise.resolve(original.apply(invocation.instance, invocation.args));
    } catch (error) {
      return Promise.reject(error);
    }
  };
  for (let i = advices.length - 1; i >= 0; i--) {
    const advice = advices[i];
    if (advice === PROCEED) continue;
    const next = run;
    run = (invocation) => advice(invocation, () => next(invocation));
  }
  const chain = run;
  if (!method.isController) return (instance, args) => chain({ instance, args, method, http: undefined });
  return (instance, args, http) => {
    const result = chain({ instance, args, method, http });
    return http ? result.catch((error: unknown) => Promise.reject(toHttpError(error, http))) : result;
  };
}
