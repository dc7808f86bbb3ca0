import { Module, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import * as library from 'nestjs-redis-patterns';
import * as adapters from 'nestjs-redis-patterns/adapters';
import * as messaging from 'nestjs-redis-patterns/messaging';
import * as structures from 'nestjs-redis-patterns/structures';

/**
 * The library under test, looked up by export name. The services land in the repository independently, so the
 * benchmark resolves them at run time and reports a missing one as "not available" rather than failing to load.
 */
const exportsByName: Record<string, unknown> = { ...library, ...adapters, ...messaging, ...structures };

/** A public export of `nestjs-redis-patterns` or its `/adapters`, `/messaging` or `/structures` entry, or undefined when it is not in the repository yet. */
export function libraryExport<T = unknown>(name: string): T | undefined {
  return exportsByName[name] as T | undefined;
}

/** Why a set of exports cannot be benchmarked, or undefined when all are present. */
export function missingExports(...names: string[]): string | undefined {
  const missing = names.filter((name) => exportsByName[name] === undefined);
  return missing.length ? `not available: ${missing.join(', ')} not exported by nestjs-redis-patterns yet` : undefined;
}

/**
 * A Nest application context with `RedisPatternsModule.forRoot({ connection: url, keyPrefix, ...sections })`,
 * the way an application would configure it (fail-fast defaults; auto-pipelining off on a single node).
 */
export async function createOurContext(
  url: string,
  keyPrefix: string,
  sections: Record<string, unknown> = {},
): Promise<INestApplicationContext> {
  @Module({ imports: [library.RedisPatternsModule.forRoot({ connection: url, keyPrefix, ...sections })] })
  class BenchModule {}
  return NestFactory.createApplicationContext(BenchModule, { logger: ['error', 'warn'] });
}

/** Resolves an exported provider class (by export name) from a context. */
export function resolveService<T>(context: INestApplicationContext, exportName: string): T {
  const token = libraryExport<new (...args: never[]) => T>(exportName);
  if (!token) throw new Error(`${exportName} is not exported by nestjs-redis-patterns`);
  return context.get(token);
}
