/**
 * Duplicates of this process waiting on a running first call, per record key. When this process completes or gives
 * up a claim it wakes them at once, instead of letting them sleep out their backoff; duplicates in other processes
 * rely on polling (bounded by the waiting time and the claim's remaining TTL).
 */
export class LocalWakeups {
  private readonly byKey = new Map<string, Set<() => void>>();

  /** Sleeps up to `ms`, or until {@link LocalWakeups.wakeAll} for `key`. */
  sleep(key: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      let waiting = this.byKey.get(key);
      if (!waiting) this.byKey.set(key, (waiting = new Set()));
      const wake = (): void => {
        clearTimeout(timer);
        waiting.delete(wake);
        if (waiting.size === 0 && this.byKey.get(key) === waiting) this.byKey.delete(key);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      waiting.add(wake);
    });
  }

  /** Wakes every waiter of `key`: each asks Redis again (a completed record replays to all; a released one goes to one). */
  wakeAll(key: string): void {
    const waiting = this.byKey.get(key);
    if (waiting) for (const wake of [...waiting]) wake();
  }
}

/**
 * The wait before poll `attempt` (0-based): exponential from 10 ms, capped at 200 ms, with "equal jitter" (a random
 * point in the upper half) so duplicates of several processes do not poll in lockstep.
 */
export function pollDelayMs(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(200, 10 * 2 ** Math.min(attempt, 10));
  return Math.max(1, Math.round(ceiling / 2 + random() * (ceiling / 2)));
}
