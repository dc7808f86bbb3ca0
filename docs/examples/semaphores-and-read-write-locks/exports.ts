import { Injectable } from '@nestjs/common';
import { SemaphoreService, WithPermit } from 'nestjs-redis-patterns';

@Injectable()
export class Exports {
  /** Stands in for your renderer: the jobs rendered. */
  readonly rendered: string[] = [];

  constructor(private readonly semaphores: SemaphoreService) {}

  // Decorator: at most 3 renders at once across all instances; waits up to 2 s for a permit (409 + Retry-After on
  // an HTTP handler when none frees up, the method does not run).
  @WithPermit({ resource: 'pdf-render', permits: 3, ttlMs: 30_000, waitMs: 2_000 })
  async render(jobId: string): Promise<void> {
    this.rendered.push(jobId);
  }

  // Service: the permit is extended while the work runs, `signal` aborts if it is lost, and it is released after.
  async exportTenant(tenant: string): Promise<number> {
    return this.semaphores.using(
      `export:${tenant}`,
      10,
      async (signal, permit) => {
        signal.throwIfAborted();
        return permit.fencingToken; // strictly increasing per semaphore: hand it to stores that fence writes
      },
      { ttlMs: 15_000, waitMs: 5_000 },
    );
  }

  // Manual: one attempt, or a wait; release yourself.
  async tryWarmUp(): Promise<boolean> {
    const permit = await this.semaphores.tryAcquire('warm-up', 2, { ttlMs: 60_000 });
    if (!permit) return false; // two instances are warming up already
    try {
      return true;
    } finally {
      await permit.release();
    }
  }
}
