import type { Type } from '@nestjs/common';
import { CONTROLLER_WATERMARK } from '@nestjs/common/constants.js';
import type { DiscoveryService, MetadataScanner } from '@nestjs/core';

/** A method of a discovered provider or controller instance. */
export interface DiscoveredMethod {
  readonly instance: object;
  readonly classRef: Type<unknown>;
  readonly methodName: string;
  readonly method: (...args: unknown[]) => unknown;
  readonly isController: boolean;
}

/**
 * Every method of every statically-scoped provider and controller instance for which `matches` is true. Shared by
 * the advice explorer and the message-handler explorers (@OnRedisMessage, @StreamConsumer).
 */
export function discoverMethods(
  discovery: DiscoveryService,
  scanner: MetadataScanner,
  matches: (method: (...args: unknown[]) => unknown) => boolean,
): DiscoveredMethod[] {
  const found: DiscoveredMethod[] = [];
  const wrappers = [...discovery.getProviders(), ...discovery.getControllers()];
  const seen = new Set<object>();
  for (const wrapper of wrappers) {
    const instance = wrapper.instance as object | undefined;
    if (!instance || typeof instance !== 'object' || seen.has(instance) || !wrapper.isDependencyTreeStatic()) continue;
    seen.add(instance);
    const prototype = Object.getPrototypeOf(instance) as object | null;
    if (!prototype) continue;
    for (const methodName of scanner.getAllMethodNames(prototype)) {
      const method = (prototype as Record<string, unknown>)[methodName];
      if (typeof method !== 'function' || !matches(method as (...args: unknown[]) => unknown)) continue;
      found.push({
        instance,
        classRef: instance.constructor as Type<unknown>,
        methodName,
        method: method as (...args: unknown[]) => unknown,
        isController: isControllerClass(instance.constructor),
      });
    }
  }
  return found;
}

export function isControllerClass(classRef: unknown): boolean {
  return typeof classRef === 'function' && Reflect.getMetadata(CONTROLLER_WATERMARK, classRef) === true;
}
