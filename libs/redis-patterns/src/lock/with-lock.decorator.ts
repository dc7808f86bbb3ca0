import { createAdvisedDecorator } from '../core/advice/create-advised-decorator';
import { WithLockAdvisor } from './with-lock.advisor';

/** Options of {@link WithLock}. */
export interface WithLockOptions {
  /** The lock's resource: a string, or a function of the method's arguments (e.g. `(id) => \`order:${id}\``). */
  resource: string | ((...args: any[]) => string);
  /** Lock TTL in ms (default `lock.defaultTtlMs`); the lock is extended automatically while the method runs. */
  ttlMs?: number;
  /** How long to wait for a held lock, in ms (default 0). */
  waitMs?: number;
  /**
   * On contention: `'throw'` (default) rejects with LockNotAcquiredError — 409 with Retry-After on an HTTP
   * handler —; `'skip'` resolves `undefined` without running the method. Redis being unavailable always throws.
   */
  onContention?: 'throw' | 'skip';
}

/**
 * Runs the method only while holding a distributed lock, extended automatically while it runs and released when it
 * settles. Works on provider methods and controller handlers; the method becomes async. It fails closed: without
 * the lock (Redis down, contention, or RedisPatternsModule missing from the application) the method never runs.
 *
 * @example
 * @WithLock({ resource: (orderId: string) => `order:${orderId}`, ttlMs: 10_000, waitMs: 1_000 })
 * async capture(orderId: string) { … }
 */
export function WithLock(options: WithLockOptions): MethodDecorator {
  return createAdvisedDecorator(WithLockAdvisor, options);
}
