import { Injectable } from '@nestjs/common';
import { describeValue } from '../../core/options/option-checks';
import { InvalidOptionsError } from '../../errors/invalid-options.error';
import { checkKey } from '../engine/entry-policy';
import { WriteBehindService } from '../write-behind/write-behind.service';
import type { AdvisedMethod, MethodAdvice, MethodAdvisor } from '../../core/advice/method-advice.interface';
import { CacheRuntime } from '../cache.runtime';
import type { CachePutOptions } from '../decorators/cache-put.decorator';
import { checkDecoratorKeys, compileKey, compileTags, compileTtl, decoratorPolicy, optionPath, reportUncached } from './compile-sources';

const KNOWN = ['key', 'ttl', 'ttlMs', 'tags', 'staleTtl', 'staleTtlMs', 'graceMs', 'codec', 'writeBehind'] as const;

/**
 * The behaviour of `@CachePut` (write-through): the method always runs, and its result is stored under the key
 * (undefined is not). The write fails open: a Redis problem is logged and counted, the result is returned.
 * With `writeBehind`, the result is written behind instead: to the cache and the queue's writer, and a failed write
 * rejects the call (nothing else would ever save the result).
 */
@Injectable()
export class CachePutAdvisor implements MethodAdvisor<CachePutOptions> {
  constructor(
    private readonly cache: CacheRuntime,
    private readonly writeBehind: WriteBehindService,
  ) {}

  prepare(raw: CachePutOptions, method: AdvisedMethod): MethodAdvice {
    const options = checkDecoratorKeys('CachePut', method, raw, KNOWN) as CachePutOptions;
    const path = (field: string) => optionPath('CachePut', method, field);
    if (options.writeBehind !== undefined) return this.writeBehindAdvice(options, method, path);
    const engine = this.cache.engine;
    const policy = decoratorPolicy('CachePut', method, options, this.cache.defaults, engine.health);
    if (policy.codec) engine.entries.register(policy.codec);
    const keyOf = compileKey(options.key, this.cache.keys, method, path('key'));
    const tagsOf = compileTags(options.tags, path('tags'));
    const withTtl = compileTtl(options.ttl);

    return async (invocation, proceed) => {
      const result = await proceed();
      if (result === undefined) return result;
      try {
        const entry = keyOf(invocation.args, invocation.context);
        let callPolicy = tagsOf ? { ...policy, tags: tagsOf(invocation.args) } : policy;
        if (withTtl) callPolicy = withTtl(callPolicy, invocation.args);
        await engine.write(entry, result, callPolicy, { strict: false });
      } catch (error) {
        reportUncached('CachePut', method, engine.health, error, 'did not store this result');
      }
      return result;
    };
  }

  // The writer gets the user's key: it must be given (a default key encodes the arguments), and tags and a TTL
  // function are not carried by a queued change.
  private writeBehindAdvice(options: CachePutOptions, method: AdvisedMethod, path: (field: string) => string): MethodAdvice {
    const queue = options.writeBehind;
    if (typeof queue !== 'string' || queue.length === 0 || queue.length > 200)
      throw new InvalidOptionsError(
        path('writeBehind'),
        'a queue name (a non-empty string of at most 200 characters)',
        describeValue(queue),
      );
    for (const field of ['tags', 'staleTtl', 'staleTtlMs', 'codec'] as const) {
      if (options[field] !== undefined)
        throw new InvalidOptionsError(path(field), `no ${field} with writeBehind`, describeValue(options[field]));
    }
    if (typeof options.ttl === 'function') throw new InvalidOptionsError(path('ttl'), 'a number of seconds with writeBehind', 'a function');
    const source = options.key;
    if (source === undefined) throw new InvalidOptionsError(path('key'), 'a key (the writer receives it) with writeBehind', 'none');
    if (typeof source !== 'string' && typeof source !== 'function')
      throw new InvalidOptionsError(path('key'), 'a non-empty string or a function returning one', describeValue(source));
    const keyOf =
      typeof source === 'string'
        ? () => source
        : (args: unknown[]) => checkKey((source as (...a: unknown[]) => unknown)(...args), 'key(...args)');
    // Checked at startup like any @CachePut's TTL; the entry is written with it.
    const { ttlMs } = decoratorPolicy('CachePut', method, options, this.cache.defaults, this.cache.engine.health);
    return async (invocation, proceed) => {
      const result = await proceed();
      if (result === undefined) return result;
      await this.writeBehind.write(queue, keyOf(invocation.args), result, { ttlMs });
      return result;
    };
  }
}
