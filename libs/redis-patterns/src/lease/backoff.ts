import { performance } from 'node:perf_hooks';

/**
 * The wait before acquisition attempt (or poll) `attempt` (0-based): exponential from `baseMs`, capped at `maxMs`,
 * with "equal jitter" (a random point in the upper half) so contenders that collided do not retry in lockstep.
 */
export function backoffDelayMs(attempt: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.min(attempt, 30));
  return Math.max(1, Math.round(ceiling / 2 + random() * (ceiling / 2)));
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
