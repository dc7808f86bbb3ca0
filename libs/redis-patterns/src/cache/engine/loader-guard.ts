import { CacheLoadTimeoutError } from '../cache-load-timeout.error';
import type { Fetched, FoundEntry } from './cache-entry';
import type { CacheHealth } from './cache-health';
import type { EntryPolicy } from './entry-policy';
import type { GraceRetry } from './grace-retry';

/**
 * A load raced against its timeouts, answered from `fallback` (the value past its fresh TTL the call found) when it
 * fails with a grace window, or runs past the soft timeout (with a fallback) or the hard one. The load itself is never
 * abandoned: it goes on in its flight (later calls join it) and fills the entry when it finishes.
 */
export function guardLoad<T>(
  flight: Promise<Fetched<T>>,
  policy: EntryPolicy,
  fallback: FoundEntry | undefined,
  ctx: { readonly entry: string; readonly health: CacheHealth; readonly graceRetry: GraceRetry },
): Promise<Fetched<T>> {
  const { softTimeoutMs, hardTimeoutMs } = policy;
  // The soft timeout needs a value to answer with; without one, only the hard timeout ends the wait.
  const timeoutMs = fallback !== undefined && softTimeoutMs > 0 ? softTimeoutMs : hardTimeoutMs;
  return new Promise<Fetched<T>>((resolve, reject) => {
    const timer =
      timeoutMs > 0
        ? setTimeout(() => {
            if (fallback !== undefined) return resolve(fromGrace<T>(fallback, ctx.health));
            ctx.health.stats.loadTimeouts++;
            reject(new CacheLoadTimeoutError(hardTimeoutMs));
          }, timeoutMs)
        : undefined;
    flight.then(
      (fetched) => {
        clearTimeout(timer);
        ctx.graceRetry.succeeded(ctx.entry);
        resolve(fetched);
      },
      (error: unknown) => {
        clearTimeout(timer);
        if (fallback === undefined || policy.graceMs === 0) return reject(error);
        ctx.graceRetry.failed(ctx.entry);
        ctx.health.warn(`Cache loader failed; answered with its grace value: ${(error as Error)?.message ?? String(error)}`);
        resolve(fromGrace<T>(fallback, ctx.health));
      },
    );
  });
}

/** A value past its fresh TTL answering for its loader (counted in `stats().graceAnswers`). */
export function fromGrace<T>(found: FoundEntry, health: CacheHealth): Fetched<T> {
  health.stats.graceAnswers++;
  return { value: found.value as T, status: 'stale' };
}
