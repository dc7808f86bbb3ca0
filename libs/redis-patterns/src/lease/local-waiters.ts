/**
 * Waiters of this process, per key (a lease's key, an idempotency record's). A release by this process wakes the
 * oldest waiter of its key at once (a completed idempotency record wakes them all) instead of letting it sleep out
 * its backoff; waiters in other processes still rely on backoff (bounded by the holder's remaining TTL).
 */
export class LocalWaiters {
  private readonly byKey = new Map<string, Array<() => void>>();

  /** Sleeps up to `ms`, or until {@link LocalWaiters.wakeOne} or {@link LocalWaiters.wakeAll} for `key`. */
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

  /** Wakes the oldest waiter of `key`, if any. */
  wakeOne(key: string): void {
    this.byKey.get(key)?.[0]?.();
  }

  /** Wakes every waiter of `key`, or, without a key (at shutdown), every waiter of every key. */
  wakeAll(key?: string): void {
    const queues = key === undefined ? [...this.byKey.values()] : [this.byKey.get(key) ?? []];
    for (const queue of queues) for (const wake of [...queue]) wake();
  }
}
