import { performance } from 'node:perf_hooks';

/**
 * The wait before acquisition attempt `attempt` (0-based): exponential from `baseMs`, capped at `maxMs`, with
 * "equal jitter" (a random point in the upper half) so contenders that collided do not retry in lockstep.
 */
export function backoffDelayMs(attempt: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.min(attempt, 30));
  return Math.max(1, Math.round(ceiling / 2 + random() * (ceiling / 2)));
}

/**
 * Waiters of this process, per lock key. A release by this process wakes the oldest waiter at once instead of
 * letting it sleep out its backoff; waiters in other processes still rely on backoff (bounded by the holder's
 * remaining TTL).
 */
export class LocalWaiters {
  private readonly byKey = new Map<string, Array<() => void>>();

  /** Sleeps up to `ms`, or until {@link LocalWaiters.wakeOne} for `key`. */
  sleep(key: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const queue = this.byKey.get(key) ?? [];
      this.byKey.set(key, queue);
      const wake = (): void => {
        clearTimeout(timer);
        const i = queue.indexOf(wake);
        if (i >= 0) queue.splice(i, 1);
        if (queue.length === 0 && this.byKey.get(key) === queue) this.byKey.delete(key);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      queue.push(wake);
    });
  }

  wakeOne(key: string): void {
    this.byKey.get(key)?.[0]?.();
  }

  wakeAll(): void {
    for (const queue of [...this.byKey.values()]) for (const wake of [...queue]) wake();
  }
}

/** An attempt that did not get its lease: why, and when the current holder's lease ends at the latest (0: unknown). */
export interface Refusal<TReason extends string = string> {
  readonly reason: TReason;
  readonly retryAfterMs: number;
}

/**
 * Repeats `attempt` until it gets a lease or the `deadline` (a `performance.now()` time) has passed, sleeping between
 * attempts with {@link backoffDelayMs} — never past the deadline, nor past the holder's remaining TTL. Resolves with
 * the lease, or with the last refusal; an attempt that throws (Redis unavailable, shutdown) ends the wait.
 */
export async function attemptUntil<TLease, TRefusal extends Refusal>(
  attempt: () => Promise<TLease | TRefusal>,
  isLease: (outcome: TLease | TRefusal) => outcome is TLease,
  deadline: number,
  delays: { readonly retryDelayMs: number; readonly maxRetryDelayMs: number },
  sleep: (ms: number) => Promise<void>,
): Promise<TLease | TRefusal> {
  for (let n = 0; ; n++) {
    const outcome = await attempt();
    if (isLease(outcome)) return outcome;
    const left = deadline - performance.now();
    if (left <= 0) return outcome;
    const holderLeft = outcome.retryAfterMs > 0 ? outcome.retryAfterMs + 1 : Number.POSITIVE_INFINITY;
    await sleep(Math.min(backoffDelayMs(n, delays.retryDelayMs, delays.maxRetryDelayMs), left, holderLeft));
  }
}
