import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * An AsyncLocalStorage that is enabled only while some work runs in it. Before Node's AsyncContextFrame, every
 * promise of the process pays an async hook while any AsyncLocalStorage is enabled, and once enabled one stays so:
 * the first `@WithLock` call would slow every request of the application from then on (ten awaits outside any
 * context: 1.84 µs after one `AsyncLocalStorage.run`, 0.64 µs after one `ScopedContext.run`, as after nothing;
 * bench/tools/async-context.ts, bench/results/async-context.txt).
 * Disabled again when the last work ends, it costs only the calls that run in it (Node removes its hook when no
 * AsyncLocalStorage is left enabled).
 *
 * `get()` answers inside the work and in what it started (nested works see the innermost store); outside any work,
 * and once every work has ended, undefined.
 */
export class ScopedContext<T> {
  private readonly storage = new AsyncLocalStorage<T>();
  private running = 0;

  /** Runs `work` with `store` as its context; the result (or error) of `work` is passed through. */
  run<R>(store: T, work: () => R | Promise<R>): Promise<R> {
    this.running++;
    let result: R | Promise<R>;
    try {
      result = this.storage.run(store, work);
    } catch (error) {
      this.ended();
      return Promise.reject(error);
    }
    return Promise.resolve(result).finally(this.ended);
  }

  /** The store of the innermost work running in this async context, if any. */
  get(): T | undefined {
    return this.running > 0 ? this.storage.getStore() : undefined;
  }

  private readonly ended = (): void => {
    if (--this.running === 0) this.storage.disable();
  };
}
