import { type ExecutionContext, Inject, Injectable, type OnApplicationShutdown, type OnModuleInit, type Type } from '@nestjs/common';
import { PATH_METADATA } from '@nestjs/common/constants.js';
import { DiscoveryService, MetadataScanner, ModuleRef } from '@nestjs/core';
import { RESOLVED_OPTIONS } from '../../redis-patterns.constants';
import type { ResolvedCoreOptions } from '../options/resolve-options';
import { METHOD_ADVICE } from './advice.constants';
import { type AdviceRuntime, bindInstance, registerRuntime, unregisterRuntime } from './advice-bindings';
import { isAdvisedMethod, isAdvisedWrapper, originalMethod } from './advised-wrapper';
import { type BoundMethod, composeHandler, composeMethod, type HandlerChain } from './compose-advice';
import { discoverMethods, isControllerClass } from './discover-methods';
import { DroppedEventLog } from './dropped-event-log';
import type { HandlerKind } from './handler-call';
import type { AdviceDeclaration, AdvisedMethod, MethodAdvice } from './method-advice.interface';

type InstanceWrapper = ReturnType<DiscoveryService['getProviders']>[number];

const KINDS: ReadonlySet<string> = new Set<HandlerKind>(['http', 'rpc', 'ws', 'graphql']);

/**
 * Prepares the advice of every decorated method, once: for the method's wrapper (direct calls) at module init, for
 * every decorated method of every provider and controller, so invalid decorator options fail startup; and for Nest's
 * calls of a handler, at its first call through {@link RedisPatternsInterceptor}, per transport.
 */
@Injectable()
export class MethodAdviceExplorer implements OnModuleInit, OnApplicationShutdown, AdviceRuntime {
  private readonly handlers = new WeakMap<Function, Map<string, HandlerChain | undefined>>();

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly moduleRef: ModuleRef,
    private readonly droppedEvents: DroppedEventLog,
    // Resolved first: the options fail startup before any decorator is prepared.
    @Inject(RESOLVED_OPTIONS) _options: ResolvedCoreOptions,
  ) {}

  onModuleInit(): void {
    const byInstance = new Map<object, Type<unknown>>();
    for (const found of discoverMethods(this.discovery, this.scanner, isAdvisedMethod)) byInstance.set(found.instance, found.classRef);
    for (const [instance, classRef] of byInstance) {
      // A controller's methods are only Nest's to call: they keep no wrapper, only the interceptor or guard applies.
      if (isControllerClass(classRef)) this.prepareControllerHandlers(instance, classRef);
      else bindInstance(instance, this.bind(instance, classRef));
    }
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

  /** Prepares the chain of every decorated method of one instance, for direct calls. */
  bind(instance: object, classRef: Type<unknown>): Map<string, BoundMethod> {
    const methods = new Map<string, BoundMethod>();
    for (const methodName of this.scanner.getAllMethodNames(Object.getPrototypeOf(instance))) {
      const wrapper = (instance as Record<string, unknown>)[methodName];
      if (!isAdvisedWrapper(wrapper)) continue;
      const method = this.methodOf(classRef, methodName, undefined);
      methods.set(methodName, composeMethod(this.advices(wrapper as Function, method), originalMethod(wrapper as () => unknown), method));
    }
    return methods;
  }

  /** The chain of the handler Nest is calling, for its transport (undefined: nothing to run around it). */
  handlerChain(context: ExecutionContext): HandlerChain | undefined {
    const kind = context.getType<string>();
    return this.handlerChainOf(context.getHandler(), context.getClass() as Type<unknown>, KINDS.has(kind) ? (kind as HandlerKind) : 'rpc');
  }

  /**
   * A controller's decorated methods are its handlers: prepared at startup, so an option that no handler can take
   * fails it. A route is HTTP (Nest's own route metadata); any other controller handler is a message or event pattern.
   */
  private prepareControllerHandlers(instance: object, classRef: Type<unknown>): void {
    for (const methodName of this.scanner.getAllMethodNames(Object.getPrototypeOf(instance))) {
      const handler = (instance as Record<string, unknown>)[methodName];
      if (!isAdvisedMethod(handler)) continue;
      this.handlerChainOf(
        handler as Function,
        classRef,
        Reflect.getMetadata(PATH_METADATA, handler as Function) === undefined ? 'rpc' : 'http',
      );
    }
  }

  private handlerChainOf(handler: Function, classRef: Type<unknown>, kind: HandlerKind): HandlerChain | undefined {
    let byKind = this.handlers.get(handler);
    if (!byKind) this.handlers.set(handler, (byKind = new Map()));
    const key = `${kind}:${classRef.name}`;
    if (byKind.has(key)) return byKind.get(key);
    const method = this.methodOf(classRef, handler.name, kind);
    const chain = isAdvisedMethod(handler) ? composeHandler(this.advices(handler, method), method, this.droppedEvents.report) : undefined;
    byKind.set(key, chain);
    return chain;
  }

  private methodOf(classRef: Type<unknown>, methodName: string, handlerKind: HandlerKind | undefined): AdvisedMethod {
    return { classRef, className: classRef.name, methodName, isController: isControllerClass(classRef), handlerKind };
  }

  private advices(wrapper: Function, method: AdvisedMethod): MethodAdvice[] {
    const declarations = Reflect.getMetadata(METHOD_ADVICE, wrapper) as AdviceDeclaration[];
    return declarations.map(({ advisor, options }) => this.moduleRef.get(advisor, { strict: false }).prepare(options, method));
  }

  private wrappers(): InstanceWrapper[] {
    return [...this.discovery.getProviders(), ...this.discovery.getControllers()];
  }
}
