import { RedisPatternsError } from '../../errors/redis-patterns.error';

/**
 * An argument that cannot identify a call in a default decorator key: a class instance without `toJSON`, a RegExp,
 * an Error, a function, a symbol, a circular structure… Two calls differing only in such an argument would share a
 * key (its state is invisible to an encoding), so the call runs without the cache instead.
 */
export class UncacheableArgumentError extends RedisPatternsError {
  /** This error's stable code (docs/errors.md). */
  readonly code = 'UNCACHEABLE_ARGUMENT';

  constructor(
    /** Where the value sits: `argument 0`, or `argument 1 at .filter[2]`. */
    readonly position: string,
    /** What it is: a class name (`ReportFilter`, `RegExp`), `function`, `symbol`, `circular structure`. */
    readonly type: string,
  ) {
    super(`${position} (${type}) cannot be part of a cache key`);
  }
}
