import { Injectable } from '@nestjs/common';
import type { AdvisedMethod, MethodAdvice, MethodAdvisor } from '../../core/advice/method-advice.interface';
import { InvalidOptionsError } from '../../errors/invalid-options.error';
import { CacheRuntime } from '../cache.runtime';
import type { CacheEvictOptions } from '../decorators/cache-evict.decorator';
import { checkDecoratorKeys, compileKeys, compileTags, optionPath } from './compile-sources';
import { invalidateTags } from '../engine/tag-invalidation';

const KNOWN = ['keys', 'tags', 'beforeInvocation'] as const;

/**
 * The behaviour of `@CacheEvict`: deletes keys and invalidates tags after the method succeeds (a throwing method
 * evicts nothing), or before it runs with `beforeInvocation: true`. Eviction fails open (logged and counted).
 */
@Injectable()
export class CacheEvictAdvisor implements MethodAdvisor<CacheEvictOptions> {
  constructor(private readonly cache: CacheRuntime) {}

  prepare(raw: CacheEvictOptions, method: AdvisedMethod): MethodAdvice {
    const options = checkDecoratorKeys('CacheEvict', method, raw, KNOWN) as CacheEvictOptions;
    const path = (field: string) => optionPath('CacheEvict', method, field);
    const keysOf = compileKeys(options.keys, this.cache.keys, path('keys'));
    const tagsOf = compileTags(options.tags, path('tags'));
    if (!keysOf && !tagsOf) throw new InvalidOptionsError(path('keys'), 'keys or tags to evict', 'neither');
    const before = options.beforeInvocation ?? false;
    if (typeof before !== 'boolean') throw new InvalidOptionsError(path('beforeInvocation'), 'true or false', String(before));
    const { engine } = this.cache;

    const evict = async (args: unknown[]): Promise<void> => {
      let entries: string[];
      let tags: readonly string[];
      try {
        entries = keysOf ? keysOf(args) : [];
        tags = tagsOf ? tagsOf(args) : [];
      } catch (error) {
        engine.health.warn(`@CacheEvict on ${method.className}.${method.methodName} evicted nothing: ${(error as Error).message}`);
        return;
      }
      await Promise.all([
        entries.length && engine.health.available(entries[0])
          ? Promise.all(entries.map((entry) => engine.store.del(entry, this.cache.settings.lockTtlMs))).catch((error: unknown) =>
              engine.health.failed('delete', error),
            )
          : undefined,
        tags.length ? invalidateTags(engine.store, engine.health, tags, this.cache.tagEpochTtlMs) : undefined,
      ]);
    };

    return async (invocation, proceed) => {
      if (before) await evict(invocation.args);
      const result = await proceed();
      if (!before) await evict(invocation.args);
      return result;
    };
  }
}
