import { createAdvisedDecorator } from '../../core/advice/create-advised-decorator';
import { CacheEvictAdvisor } from '../advisors/cache-evict.advisor';
import type { TagsSource } from '../advisors/compile-sources';
import type { TypedMethodDecorator } from './cacheable.decorator';

/** Options of {@link CacheEvict}: at least one of `keys` and `tags`. */
export interface CacheEvictOptions<A extends unknown[] = any[]> {
  /** Keys to delete: a key, a list, or a function of the method's arguments returning either. */
  keys?: string | readonly string[] | ((...args: A) => string | number | readonly string[]);
  /** Tags to invalidate (every entry carrying one is deleted). */
  tags?: TagsSource<A>;
  /** Evict before the method runs (default false: only after it succeeded, so a failing call evicts nothing). */
  beforeInvocation?: boolean;
}

/**
 * Evicts cache entries around a method that changes the data they were built from: by key and/or by tag, after a
 * successful call (default) or before it. Fails open: an eviction Redis refused is logged and counted, and the
 * entries expire with their TTL.
 *
 * @example
 * \@CacheEvict({ tags: (id: string) => [`user:${id}`] })
 * rename(id: string, name: string): Promise<void> { … }
 */
export function CacheEvict<A extends unknown[] = any[]>(options: CacheEvictOptions<A>): TypedMethodDecorator<any> {
  const decorate = createAdvisedDecorator(CacheEvictAdvisor, options as CacheEvictOptions);
  return (target, propertyKey, descriptor) => {
    decorate(target, propertyKey, descriptor as TypedPropertyDescriptor<unknown>);
  };
}
