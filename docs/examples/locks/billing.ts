import { Injectable, Module } from '@nestjs/common';
import { LockService, RedisPatternsModule, WithLock } from 'nestjs-redis-patterns';

@Injectable()
export class Billing {
  /** Stands in for your database: it keeps the highest fencing token it accepted per invoice. */
  private readonly ledger = new Map<string, { fence: number; status: string }>();

  constructor(private readonly locks: LockService) {}

  // Decorator: the method runs only while holding the lock, extended automatically while it runs.
  @WithLock({ resource: (invoiceId: string) => `invoice:${invoiceId}`, ttlMs: 10_000, waitMs: 2_000 })
  async settle(invoiceId: string): Promise<void> {
    const { fencingToken } = this.locks.current()!; // the lock this call holds
    this.fencedWrite(invoiceId, fencingToken, 'settled');
  }

  // Service: `using()` acquires, auto-extends, aborts `signal` if the lock is lost, and releases in `finally`.
  async rebuild(invoiceIds: string[]): Promise<string> {
    return this.locks.using(
      'rebuild',
      async (signal, lock) => {
        for (const id of invoiceIds) {
          signal.throwIfAborted(); // stop as soon as the lock is known to be lost
          this.fencedWrite(id, lock.fencingToken, 'rebuilt');
        }
        return 'done';
      },
      { ttlMs: 15_000 },
    );
  }

  // Manual: tryAcquire (one attempt) or acquire (waits up to waitMs); release yourself.
  async dailyReport(): Promise<boolean> {
    const lock = await this.locks.tryAcquire('daily-report', { ttlMs: 60_000 });
    if (!lock) return false; // another instance is doing it
    try {
      return true;
    } finally {
      await lock.release();
    }
  }

  private fencedWrite(id: string, fence: number, status: string): void {
    const row = this.ledger.get(id);
    if (row && row.fence >= fence) throw new Error(`stale lock holder for ${id}`);
    this.ledger.set(id, { fence, status });
  }
}

@Module({
  imports: [RedisPatternsModule.forRoot({ connection: process.env.REDIS_URL, lock: { defaultTtlMs: 30_000 } })],
  providers: [Billing],
})
export class AppModule {}
