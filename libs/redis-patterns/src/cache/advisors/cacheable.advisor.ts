import { Injectable } from '@nestjs/common';
import { describeValue } from '../../core/options/option-checks';
import { InvalidOptionsError } from '../../errors/invalid-options.error';
import type { AdvisedMethod, MethodAdvice, MethodAdvisor } from '../../core/advice/method-advice.interface';
import { CacheRuntime } from '../cache.runtime';
import type { CacheableOptions } from '../decorators/cacheable.decorator';
import type { CacheStatus, StorePredicate } from '../engine/cache-entry';
import {
  checkDecoratorKeys,
  checkFunction,
  compileKey,
  compileTags,
  compileTtl,
  decoratorPolicy,
  optionPath,
  reportUncached,
} from './compile-sources';

const KNOWN = [
  'key',
  'ttl',
  'ttlMs',
  'tags',
  'condition',
  'unless',
  'staleTtl',
  'staleTtlMs',
  'earlyRefresh',
  'nearCache',
  'codec',
  'graceMs',
  'softTimeoutMs',
  'hardTimeoutMs',
  'forceFresh',
] as const;

/**
 * The behaviour of `@Cacheable`: cache-aside around the method, with the same stampede control, stale window and
 * fail-open policy as `CacheService.wrap`. Options are checked and compiled here, once per method at bootstrap, so a
 * call does no option work: a hit is one GET, one parse and (on HTTP) one header.
 */
@Injectable()
export class CacheableAdvisor implements MethodAdvisor<CacheableOptions> {
  constructor(private readonly cache: CacheRuntime) {}

  prepare(raw: CacheableOptions, method: AdvisedMethod): MethodAdvice {
    const options = checkDecoratorKeys('Cacheable', method, raw, KNOWN) as CacheableOptions;
    const path = (field: string) => optionPath('Cacheable', method, field);
    const engine = this.cache.engine;
    const base = decoratorPolicy('Cacheable', method, options, this.cache.defaults, engine.health);
    const policy = this.cache.nearPolicy(base, options.nearCache, path('nearCache'));
    // Entries of this method's codec are readable through CacheService too.
    if (policy.codec) engine.entries.register(policy.codec);
    const keyOf = compileKey(options.key, this.cache.keys, method, path('key'));
    const tagsOf = compileTags(options.tags, path('tags'));
    const withTtl = compileTtl(options.ttl);
    checkFunction(options.condition, path('condition'));
    const forceFresh = compileForceFresh(options.forceFresh, path('forceFresh'));
    checkFunction(options.unless, path('unless'));
    const condition = options.condition as ((...args: unknown[]) => boolean) | undefined;
    const unless = options.unless as ((result: unknown, ...args: unknown[]) => boolean) | undefined;
    const httpMethods = this.cache.settings.httpMethods;
    const statusHeader = this.cache.settings.statusHeader;

    return (invocation, proceed) => {
      const http = invocation.http;
      if (http && !httpMethods.has((http.request as { method?: string }).method ?? 'GET')) return proceed();
      const args = invocation.args;
      if (condition && !condition(...args)) return proceed();
      let entry: string;
      let callPolicy = policy;
      try {
        entry = keyOf(args, invocation.context);
        if (tagsOf) callPolicy = { ...policy, tags: tagsOf(args) };
        if (withTtl) callPolicy = withTtl(callPolicy, args);
      } catch (error) {
        reportUncached('Cacheable', method, engine.health, error, 'did not cache this call');
        return proceed();
      }
      let keep: StorePredicate | undefined;
      if (unless || http) {
        keep = (result) => !(unless && unless(result, ...args)) && !(http && setsCookie(http.response));
      }
      const fetched = engine.fetch(entry, proceed, callPolicy, keep, forceFresh(args));
      if (!http || !statusHeader) return fetched.then(valueOf);
      return fetched.then((result) => {
        http.setHeader('X-Cache', xCacheHeader(result.status));
        return result.value;
      });
    };
  }
}

/** `forceFresh` as a function of the call: a constant, or the option's function (checked at bootstrap). */
function compileForceFresh(option: unknown, path: string): (args: unknown[]) => boolean {
  if (option === undefined || option === false) return never;
  if (option === true) return always;
  if (typeof option !== 'function') throw new InvalidOptionsError(path, 'true, false or a function of the call', describeValue(option));
  const decide = option as (...args: unknown[]) => unknown;
  return (args) => decide(...args) === true;
}

const never = (): boolean => false;
const always = (): boolean => true;

function valueOf(result: { value: unknown }): unknown {
  return result.value;
}

const X_CACHE: Readonly<Record<CacheStatus, string>> = { hit: 'HIT', miss: 'MISS', stale: 'STALE' };

/** `X-Cache` stays HIT/MISS/STALE (the CDN convention the docs promise) while CacheStatus is lower-case. */
function xCacheHeader(status: CacheStatus): string {
  return X_CACHE[status];
}

/** A response that sets a cookie is personal: it is never stored. */
function setsCookie(response: unknown): boolean {
  const res = response as { getHeader?: (name: string) => unknown } | undefined;
  return typeof res?.getHeader === 'function' && res.getHeader('set-cookie') !== undefined;
}
