import { WorkerPool } from './worker-pool';
import type { WorkerSpec } from './worker-protocol';

/** A worker pool some contenders use: started by `acquire`, running until the matching `release`. */
export interface WorkerPoolLease {
  acquire(): Promise<void>;
  /** The running pool; only between a successful `acquire` and the matching `release`. */
  current(): Promise<WorkerPool>;
  release(): Promise<void>;
}

/**
 * One worker pool for several contenders of a group: started by the first contender's setup, stopped by the last
 * one's teardown. The 1-, 2- and 4-process rows run the first 1, 2 or 4 of the same workers, so a group starts its
 * Nest contexts once instead of once per row, and no idle process of another row waits on the shared cores.
 */
export class SharedWorkerPool implements WorkerPoolLease {
  private users = 0;
  private pool?: Promise<WorkerPool>;

  constructor(private readonly specs: readonly WorkerSpec[]) {}

  /** Starts the pool on first use. A failed start leaves nothing running and is retried by the next caller. */
  async acquire(): Promise<void> {
    this.pool ??= WorkerPool.start(this.specs);
    try {
      await this.pool;
    } catch (error) {
      this.pool = undefined;
      throw error;
    }
    this.users++;
  }

  async current(): Promise<WorkerPool> {
    if (!this.pool || this.users === 0) throw new Error('the worker pool is not started');
    return this.pool;
  }

  /** Stops the pool when its last user releases it. */
  async release(): Promise<void> {
    if (this.users === 0 || --this.users > 0) return;
    const pool = this.pool;
    this.pool = undefined;
    await (await pool)?.stop();
  }
}
