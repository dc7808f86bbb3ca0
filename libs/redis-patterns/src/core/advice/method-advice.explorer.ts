import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit, type Type } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, ModuleRef } from '@nestjs/core';
import { UnsupportedHandlerError } from '../../errors/unsupported-handler.error';
import { RESOLVED_OPTIONS } from '../../redis-patterns.constants';
import { ThrottledLog } from '../logging/throttled-log';
import type { ResolvedCoreOptions } from '../options/resolve-options';
import { METHOD_ADVICE } from './advice.constants';
import { type AdviceRuntime, bindInstance, type BoundMethod, registerRuntime, unregisterRuntime } from './advice-bindings';
import { composeAdvice } from './compose-advice';
import { isAdvisedWrapper, originalMethod } from './create-advised-decorator';
import { discoverMethods, isControllerClass } from './discover-methods';
import { declareHandlerCallParam } from './handler-call-param';
import { handlerKindsOf, type HandlerKind } from './handler-kind';
import type { AdviceDeclaration, AdvisedMethod } from './method-advice.interface';

type InstanceWrapper = ReturnType<DiscoveryService['getProviders']>[number];

const ARTICLES: Record<HandlerKind, string> = {
  http: 'an HTTP route',
  rpc: 'a message pattern',
  'rpc-event': 'an event pattern',
  grpc: 'a gRPC method',
  ws: 'a WebSocket message',
  graphql: 'a GraphQL resolver',
};

// The kind each decorated wrapper was prepared as (undefined: not a handler), shared by every application of
// the process: it depends only on the class's decorators.
const preparedKinds = new WeakMap<Function, HandlerKind | undefined>();

/**
 * Binds every decorated method of every provider and controller to its advice chain at module init, so that
 * invalid decorator options fail startup and calls need no lookup beyond one WeakMap read.
 */
@Injectable()
export class MethodAdviceExplorer implements OnModuleInit, OnApplicationShutdown, AdviceRuntime {
  private readonly droppedEvents: ThrottledLog;
  // Found at instantiation, thrown at module init: an error thrown while providers are being created would leave
  // the connections already opened with no application to close them.
  private readonly unsupported: Error[] = [];

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly moduleRef: ModuleRef,
    @Inject(RESOLVED_OPTIONS) options: ResolvedCoreOptions,
  ) {
    this.droppedEvents = new ThrottledLog(options.logger ?? new Logger('RedisPatterns'));
    // At instantiation, not at module init: Nest sets up routes, microservice listeners, gateways and resolvers
    // (reading each handler's parameter metadata) after every provider exists and before any onModuleInit.
    this.prepareHandlers();
  }

  onModuleInit(): void {
    if (this.unsupported.length > 0) throw this.unsupported[0];
    const byInstance = new Map<object, Type<unknown>>();
    for (const found of discoverMethods(this.discovery, this.scanner, isAdvisedWrapper)) byInstance.set(found.instance, found.classRef);
    for (const [instance, classRef] of byInstance) bindInstance(instance, this.bind(instance, classRef));
    // Only once every method is bound: an application whose decorator options fail startup must not become the
    // runtime that late-bound instances fall back to.
    registerRuntime(this);
  }

  onApplicationShutdown(): void {
    unregisterRuntime(this);
  }

  owns(instance: object): boolean {
    return this.wrappers().some((wrapper) =>
      wrapper.isDependencyTreeStatic() ? wrapper.instance === instance : wrapper.metatype === instance.constructor && !wrapper.inject,
    );
  }

  /** Prepares the advice chain of every decorated method of one instance. */
  bind(instance: object, classRef: Type<unknown>): Map<string, BoundMethod> {
    const methods = new Map<string, BoundMethod>();
    const isController = isControllerClass(classRef);
    for (const methodName of this.scanner.getAllMethodNames(Object.getPrototypeOf(instance))) {
      const wrapper = (instance as Record<string, unknown>)[methodName];
      if (!isAdvisedWrapper(wrapper)) continue;
      const declarations = Reflect.getMetadata(METHOD_ADVICE, wrapper as object) as AdviceDeclaration[];
      const handlerKind = kindOf(classRef, methodName, wrapper as Function);
      const method: AdvisedMethod = { classRef, className: classRef.name, methodName, isController, handlerKind };
      const advices = declarations.map(({ advisor, options }) => this.moduleRef.get(advisor, { strict: false }).prepare(options, method));
      methods.set(methodName, composeAdvice(advices, originalMethod(wrapper as (...a: unknown[]) => unknown), method, this.onDroppedEvent));
    }
    return methods;
  }

  private readonly onDroppedEvent = (error: Error, method: AdvisedMethod): void => {
    this.droppedEvents.warn(`Event dropped by ${method.className}.${method.methodName}: ${error.message}`);
  };

  /** Declares the hidden call parameter on every decorated handler of the application's classes. */
  private prepareHandlers(): void {
    for (const wrapper of this.wrappers()) {
      const classRef = wrapper.metatype;
      if (typeof classRef !== 'function' || wrapper.inject || !classRef.prototype) continue;
      for (const methodName of this.scanner.getAllMethodNames(classRef.prototype)) {
        const method = (classRef.prototype as Record<string, unknown>)[methodName];
        if (!isAdvisedWrapper(method) || preparedKinds.has(method as Function)) continue;
        let kind: HandlerKind | undefined;
        try {
          kind = kindOf(classRef as Type<unknown>, methodName, method as Function);
        } catch (error) {
          this.unsupported.push(error as Error);
          continue;
        }
        preparedKinds.set(method as Function, kind);
        if (kind) declareHandlerCallParam(declaringPrototype(classRef.prototype as object, methodName), methodName, kind);
      }
    }
  }

  private wrappers(): InstanceWrapper[] {
    return [...this.discovery.getProviders(), ...this.discovery.getControllers()];
  }
}

/** The one kind of handler a decorated method is, if any; a method of several kinds fails startup. */
function kindOf(classRef: Type<unknown>, methodName: string, method: Function): HandlerKind | undefined {
  if (preparedKinds.has(method)) return preparedKinds.get(method);
  const kinds = handlerKindsOf(classRef, method);
  if (kinds.length > 1)
    throw new UnsupportedHandlerError(
      classRef.name,
      methodName,
      `is ${kinds.map((kind) => ARTICLES[kind]).join(' and ')} at once; give each transport its own method (each may call a shared one)`,
    );
  // gRPC passes metadata and a call object, and expects gRPC status codes: not supported yet, so refused.
  if (kinds[0] === 'grpc')
    throw new UnsupportedHandlerError(
      classRef.name,
      methodName,
      'is a gRPC method, where redis-patterns decorators are not supported yet; decorate a provider method it calls instead',
    );
  return kinds[0];
}

function declaringPrototype(prototype: object, methodName: string): object {
  let current: object | null = prototype;
  while (current && !Object.prototype.hasOwnProperty.call(current, methodName)) current = Object.getPrototypeOf(current) as object | null;
  return current ?? prototype;
}
