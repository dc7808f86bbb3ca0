import { SharedLease } from '../lib/shared-lease';
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
  private readonly lease: SharedLease<WorkerPool>;

  constructor(specs: readonly WorkerSpec[]) {
    this.lease = new SharedLease(
      'the worker pool',
      () => WorkerPool.start(specs),
      (pool) => pool.stop(),
    );
  }

  acquire(): Promise<void> {
    return this.lease.acquire();
  }

  current(): Promise<WorkerPool> {
    return this.lease.current();
  }

  release(): Promise<void> {
    return this.lease.release();
  }
}
