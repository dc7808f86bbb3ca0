/**
 * Something several contenders of a group share (a worker pool, a cluster): started by the first `acquire`, stopped
 * by the last `release`. A failed start leaves nothing running and is retried by the next caller.
 */
export class SharedLease<T> {
  private users = 0;
  private started?: Promise<T>;

  constructor(
    private readonly what: string,
    private readonly start: () => Promise<T>,
    private readonly stop: (value: T) => Promise<void>,
  ) {}

  /** Starts the shared thing on first use. */
  async acquire(): Promise<void> {
    this.started ??= this.start();
    try {
      await this.started;
    } catch (error) {
      this.started = undefined;
      throw error;
    }
    this.users++;
  }

  /** The running thing; only between a successful `acquire` and the matching `release`. */
  async current(): Promise<T> {
    if (!this.started || this.users === 0) throw new Error(`${this.what} is not started`);
    return this.started;
  }

  /** Stops it when its last user releases it. */
  async release(): Promise<void> {
    if (this.users === 0 || --this.users > 0) return;
    const started = this.started;
    this.started = undefined;
    if (started) await this.stop(await started);
  }
}
