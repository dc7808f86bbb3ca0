/**
 * In-process single-flight: concurrent callers of the same key share one promise, so one process runs a loader
 * once however many requests miss together. The entry is dropped when the promise settles.
 */
export class SingleFlight {
  private readonly inFlight = new Map<string, Promise<unknown>>();

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const running = this.inFlight.get(key);
    if (running) return running as Promise<T>;
    const started = work().finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, started);
    return started;
  }

  /** Whether a flight for `key` is running (used to start at most one background refresh per key). */
  has(key: string): boolean {
    return this.inFlight.has(key);
  }

  /** Every running flight, for draining at shutdown. */
  all(): Promise<unknown>[] {
    return [...this.inFlight.values()];
  }
}
