import type { ThrottledLog } from '../core/logging/throttled-log';
import type { IdempotencyStore } from './idempotency.store';

/**
 * Keeps a running first call's claim alive: refreshes its in-progress TTL every third of it, so the record expires
 * only when this process stops refreshing it — it died, froze, or lost Redis — and a retry may then run. A claim
 * found gone (this process stalled past the TTL) is reported once and no longer refreshed: the call's outcome will
 * not be stored, since another call may own the key by then.
 */
export class ClaimHeartbeat {
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly store: IdempotencyStore,
    private readonly key: string,
    private readonly token: string,
    private readonly lockTtlMs: number,
    private readonly scope: string,
    private readonly log: ThrottledLog,
  ) {}

  start(): this {
    this.schedule();
    return this;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.beat(), Math.max(1, Math.floor(this.lockTtlMs / 3)));
    // A heartbeat never keeps the process alive on its own.
    this.timer.unref();
  }

  private async beat(): Promise<void> {
    try {
      const kept = await this.store.extend(this.key, this.token, this.lockTtlMs);
      if (!kept && !this.stopped) {
        this.stopped = true;
        this.log.warn(
          `The idempotency claim of a running ${this.scope} call expired before it completed (a stall longer than lockTtlMs); its outcome will not be stored.`,
        );
        return;
      }
    } catch (error) {
      // A transient failure: the claim lives until its TTL; the next beat tries again.
      if (!this.stopped) this.log.warn(`Could not refresh an idempotency claim of ${this.scope}: ${(error as Error).message}`);
    }
    this.schedule();
  }
}
