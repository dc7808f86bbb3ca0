import { Injectable } from '@nestjs/common';
import type { AdvisedMethod, MethodAdvice, MethodAdvisor } from '../../core/advice/method-advice.interface';
import { CacheRuntime } from '../cache.runtime';
import type { CachePutOptions } from '../decorators/cache-put.decorator';
import { checkDecoratorKeys, compileKey, compileTags, compileTtl, decoratorPolicy, optionPath, reportUncached } from './compile-sources';

const KNOWN = ['key', 'ttl', 'ttlMs', 'tags', 'staleTtl', 'staleTtlMs', 'graceMs', 'codec'] as const;

/**
 * The behaviour of `@CachePut` (write-through): the method always runs, and its result is stored under the key
 * (undefined is not). The write fails open: a Redis problem is logged and counted, the result is returned.
 */
@Injectable()
export class CachePutAdvisor implements MethodAdvisor<CachePutOptions> {
  constructor(private readonly cache: CacheRuntime) {}

  prepare(raw: CachePutOptions, method: AdvisedMethod): MethodAdvice {
    const options = checkDecoratorKeys('CachePut', method, raw, KNOWN) as CachePutOptions;
    const path = (field: string) => optionPath('CachePut', method, field);
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
}
