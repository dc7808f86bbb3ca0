import { Injectable } from '@nestjs/common';
import { LockService, type ReadWriteLock } from 'nestjs-redis-patterns';

@Injectable()
export class Catalog {
  private readonly rw: ReadWriteLock;
  /** Stands in for your price table, and the fencing token of the write that filled it. */
  private prices = new Map<string, number>();
  loadedUnderToken = 0;

  constructor(locks: LockService) {
    this.rw = locks.readWrite('catalog'); // cheap: make one per resource, or one per call
  }

  // Many readers at once.
  price(sku: string): Promise<number> {
    return this.rw.read(async () => this.prices.get(sku) ?? 0, { ttlMs: 5_000, waitMs: 1_000 });
  }

  // One writer, alone; new readers wait while it waits.
  reload(): Promise<void> {
    return this.rw.write(
      async (signal, lease) => {
        signal.throwIfAborted();
        this.prices = new Map([['lamp', 42]]);
        // lease.fencingToken comes from the counter of LockService's mutex on 'catalog': comparable with its tokens
        this.loadedUnderToken = lease.fencingToken;
      },
      { ttlMs: 30_000, waitMs: 10_000 },
    );
  }
}
