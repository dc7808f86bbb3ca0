import type { ExecutionContext } from '@nestjs/common';
import { handlerData } from '../../core/advice/handler-call';
import type { AdvisedMethod } from '../../core/advice/method-advice.interface';
import { describeValue } from '../../core/options/option-checks';
import { InvalidArgumentError } from '../../errors/invalid-argument.error';
import { InvalidOptionsError } from '../../errors/invalid-options.error';
import type { CacheKeys } from '../engine/cache-keys';
import { buildPolicy, checkKey, checkTags, type EntryPolicy, type PolicyDefaults, type WrapOptions } from '../engine/entry-policy';
import type { CacheHealth } from '../engine/cache-health';
import { secondsSpelling, ttlUnitWarning } from '../ttl-units';
import { encodeArguments } from './encode-arguments';
import { UncacheableArgumentError } from './uncacheable-argument.error';

/** A key given to a cache decorator: a constant, or a function of the decorated method's arguments. */
export type KeySource<A extends unknown[]> = string | ((...args: A) => string | number);
/** Tags given to a cache decorator: a constant list, or a function of the decorated method's arguments. */
export type TagsSource<A extends unknown[]> = readonly string[] | ((...args: A) => readonly string[]);

type AnyArgs = unknown[];

/** `@Cacheable on UsersService.find` — how option errors name the decorated method. */
export function optionPath(decorator: string, method: AdvisedMethod, field: string): string {
  return `@${decorator}(${method.className}.${method.methodName}).${field}`;
}

/**
 * Turns a key source into a function from arguments to the entry key, decided once: a constant key is escaped once;
 * a function gets the key-function arguments (the method's on a direct call, `(request, context)` on a handler call);
 * without a key, the default is `<Class>.<method>` plus an encoding of the call's data — the method's arguments, or
 * on a handler call what identifies it (HTTP method and URL, RPC payload, WebSocket message, GraphQL parent and
 * arguments; never the socket or a transport context).
 */
export function compileKey(
  source: unknown,
  keys: CacheKeys,
  method: AdvisedMethod,
  path: string,
): (args: AnyArgs, context?: ExecutionContext) => string {
  if (source === undefined) {
    const head = `${method.className}.${method.methodName}`;
    if (!method.handlerKind) return (args) => keys.entry(head, encodeArguments(args));
    return (args, context) => keys.entry(head, encodeArguments(context ? handlerData(context) : args));
  }
  if (typeof source === 'string' || typeof source === 'number') {
    const entry = keys.entry(guard(() => checkKey(source), path, source));
    return () => entry;
  }
  if (typeof source === 'function') {
    const fn = source as (...args: AnyArgs) => unknown;
    return (args) => keys.entry(checkKey(fn(...args), 'key(...args)'));
  }
  throw new InvalidOptionsError(path, 'a non-empty string or a function of the method arguments returning one', describeValue(source));
}

/**
 * Logs why a decorated call went without the cache. An argument the default key cannot encode is a property of the
 * method's signature, not of one call: it is reported once per method and argument (unthrottled, so it is never lost
 * behind an outage's lines); anything else (a key function that threw) goes through the rate-limited log.
 */
export function reportUncached(decorator: string, method: AdvisedMethod, health: CacheHealth, error: unknown, outcome: string): void {
  const where = `@${decorator} on ${method.className}.${method.methodName}`;
  if (error instanceof UncacheableArgumentError) {
    health.warnOnce(
      `${where}|${error.position}|${error.type}`,
      `${where} runs without the cache: ${error.message} (give the decorator a key, or the argument's class a toJSON())`,
    );
    return;
  }
  health.warn(`${where} ${outcome}: ${(error as Error).message}`);
}

/** Several keys (for @CacheEvict): a key, a list of keys, or a function returning either. */
export function compileKeys(source: unknown, keys: CacheKeys, path: string): ((args: AnyArgs) => string[]) | undefined {
  if (source === undefined) return undefined;
  const toEntries = (value: unknown, where: string): string[] =>
    (Array.isArray(value) ? value : [value]).map((key, i) => keys.entry(checkKey(key, `${where}[${i}]`)));
  if (typeof source === 'function') {
    const fn = source as (...args: AnyArgs) => unknown;
    return (args) => toEntries(fn(...args), 'keys(...args)');
  }
  const constant = guard(() => toEntries(source, 'keys'), path, source);
  return () => constant;
}

/** Tags as a function of the arguments (`undefined` when the decorator has none). */
export function compileTags(source: unknown, path: string): ((args: AnyArgs) => readonly string[]) | undefined {
  if (source === undefined) return undefined;
  if (typeof source === 'function') {
    const fn = source as (...args: AnyArgs) => unknown;
    return (args) => checkTags(fn(...args), 'tags(...args)');
  }
  const constant = guard(() => checkTags(source, 'tags'), path, source);
  return () => constant;
}

/** An optional predicate option must be a function. */
export function checkFunction(value: unknown, path: string): void {
  if (value !== undefined && typeof value !== 'function') throw new InvalidOptionsError(path, 'a function', describeValue(value));
}

/** Runs an argument check at bootstrap and reports a failure as an option error naming the decorator. */
export function guard<T>(check: () => T, path: string, value: unknown): T {
  try {
    return check();
  } catch (error) {
    if (!(error instanceof InvalidArgumentError)) throw error;
    const expected = error.message.replace(/^Invalid argument "[^"]*": (expected )?/, '');
    throw new InvalidOptionsError(path, expected, describeValue(value));
  }
}

/**
 * Builds a decorator's entry policy at bootstrap; an invalid ttl/ttlMs/staleTtl/staleTtlMs/earlyRefresh fails startup,
 * and a seconds TTL that reads like ms is logged once through `health`, naming the decorator and method.
 */
export function decoratorPolicy(
  decorator: string,
  method: AdvisedMethod,
  options: Pick<
    WrapOptions,
    'ttlMs' | 'staleTtl' | 'staleTtlMs' | 'earlyRefresh' | 'codec' | 'graceMs' | 'softTimeoutMs' | 'hardTimeoutMs'
  > & {
    ttl?: unknown;
  },
  defaults: PolicyDefaults,
  health?: Pick<CacheHealth, 'warnOnce'>,
): EntryPolicy {
  try {
    const { ttl, ttlMs, staleTtl, staleTtlMs, earlyRefresh, codec, graceMs, softTimeoutMs, hardTimeoutMs } = options;
    const policy = buildPolicy(
      secondsSpelling(
        { ttl, ttlMs, staleTtl, staleTtlMs, earlyRefresh, codec, graceMs, softTimeoutMs, hardTimeoutMs },
        'options',
      ) as WrapOptions,
      defaults,
      'options',
    );
    for (const field of ['ttl', 'staleTtl'] as const) {
      const path = optionPath(decorator, method, field);
      const warning = ttlUnitWarning(path, field, options[field]);
      if (warning) health?.warnOnce(`ttl-unit|${path}`, warning);
    }
    return policy;
  } catch (error) {
    if (!(error instanceof InvalidArgumentError)) throw error;
    const field = error.argument.replace(/^options\./, '');
    const expected = error.message.replace(/^Invalid argument "[^"]*": (expected )?/, '');
    throw new InvalidOptionsError(
      optionPath(decorator, method, field),
      expected,
      describeValue((options as Record<string, unknown>)[field]),
    );
  }
}

/** Rejects option names a decorator does not know (a typo such as `ttlSeconds` fails startup). */
export function checkDecoratorKeys(
  decorator: string,
  method: AdvisedMethod,
  options: unknown,
  allowed: readonly string[],
): Record<string, unknown> {
  if (options === undefined) return {};
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new InvalidOptionsError(`@${decorator}(${method.className}.${method.methodName})`, 'an options object', describeValue(options));
  }
  for (const key of Object.keys(options)) {
    if (!allowed.includes(key))
      throw new InvalidOptionsError(optionPath(decorator, method, key), `one of ${allowed.join(', ')}`, 'an unknown option');
  }
  return options as Record<string, unknown>;
}

/**
 * A decorator's TTL function of `(result, ...args)`, bound per call to the call's arguments: undefined when the TTL is
 * a number (the policy's own `ttlMs` then serves every call without an allocation).
 */
export function compileTtl(ttl: unknown): ((policy: EntryPolicy, args: readonly unknown[]) => EntryPolicy) | undefined {
  if (typeof ttl !== 'function') return undefined;
  const ttlOf = ttl as (result: unknown, ...args: unknown[]) => unknown;
  return (policy, args) => ({ ...policy, ttlOf: (value) => ttlOf(value, ...args) });
}
