import { BenchCluster } from './bench-cluster';
import { SharedWorkerPool, type WorkerPoolLease } from './shared-worker-pool';
import type { WorkerPool } from './worker-pool';
import type { ClusterConnection, WorkerSpec } from './worker-protocol';

/**
 * Worker processes on a 3-master cluster started for them: the cluster starts before the workers (they need its
 * seed nodes) and stops after them, so it exists only while a contender holds the pool.
 */
export class ClusterWorkerPool implements WorkerPoolLease {
  private cluster?: BenchCluster;
  private workers?: SharedWorkerPool;

  /** `specsFor` builds the worker specs once the cluster's nodes are known. */
  constructor(private readonly specsFor: (connection: ClusterConnection) => WorkerSpec[]) {}

  /** Starts the cluster, then the workers; stops the cluster again if the workers fail to start. */
  async acquire(): Promise<void> {
    if (this.cluster) throw new Error('the cluster worker pool is already started');
    const cluster = await BenchCluster.start();
    const workers = new SharedWorkerPool(this.specsFor(cluster.connection));
    try {
      await workers.acquire();
    } catch (error) {
      await cluster.stop();
      throw error;
    }
    [this.cluster, this.workers] = [cluster, workers];
  }

  current(): Promise<WorkerPool> {
    if (!this.workers) throw new Error('the cluster worker pool is not started');
    return this.workers.current();
  }

  /** CPU (µs) used so far by the cluster's three masters. */
  mastersCpuUs(): Promise<number> {
    if (!this.cluster) throw new Error('the cluster is not started');
    return this.cluster.mastersCpuUs();
  }

  /** Stops the workers, then the cluster (also when stopping the workers failed). */
  async release(): Promise<void> {
    const [cluster, workers] = [this.cluster, this.workers];
    this.cluster = this.workers = undefined;
    try {
      await workers?.release();
    } finally {
      await cluster?.stop();
    }
  }
}
