import { createAdvisedDecorator } from '../core/advice/create-advised-decorator';
import { WithPermitAdvisor } from './with-permit.advisor';

/** Options of {@link WithPermit}. */
export interface WithPermitOptions {
  /** The semaphore: a string, or a function of the method's arguments (e.g. `(tenant) => \`export:${tenant}\``). */
  resource: string | ((...args: any[]) => string);
  /** How many holders the semaphore admits at once (an integer ≥ 1; every user of one semaphore should agree). */
  permits: number;
  /** Permit TTL in ms (default `lock.defaultTtlMs`); the permit is extended automatically while the method runs. */
  ttlMs?: number;
  /** How long to wait for a free permit, in ms (default 0). */
  waitMs?: number;
}

/**
 * Runs the method only while holding one of `permits` permits of a distributed semaphore, extended automatically while
 * it runs and released when it settles. Works on provider methods and every kind of handler; the method becomes async.
 * Without a permit (all in use for `waitMs`: 409 with Retry-After over HTTP; Redis down: 503) the method never runs.
 *
 * @example
 * @WithPermit({ resource: 'pdf-render', permits: 3, ttlMs: 30_000, waitMs: 2_000 })
 * async render(job: Job) { … }
 */
export function WithPermit(options: WithPermitOptions): MethodDecorator {
  return createAdvisedDecorator(WithPermitAdvisor, options);
}
