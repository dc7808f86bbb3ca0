import type { LoggerService } from '@nestjs/common';
import type { Lease, LostOf } from './lease';

/** What a {@link KeepAlive} extends, how often, and whom it tells. */
export interface KeepAliveOptions<TLost> {
  /** Time between the end of one extension and the start of the next, in ms. */
  readonly intervalMs: number;
  /**
   * One extension: resolves undefined once the lease is extended, or with the reason it is lost when the store says
   * it is gone or someone else's; rejects on a transient failure (timeout, reconnect), which the next tick retries.
   */
  extend(): Promise<TLost | undefined>;
  /** Called once, when the lease is known lost; never after `stop()`. */
  onLost(reason: TLost): void;
  /** A transient failure of one extension (for the log). */
  onFailure(error: unknown): void;
  /**
   * The lease's validity on this side, when it is tracked: after the start and after each successful extension, a
   * deadline is armed at `remainingMs()`, and the lease is lost (`expired()`) when it passes with no successful
   * extension since. Without it, only an extension can find the lease lost.
   */
  readonly validity?: { remainingMs(): number; expired(): TLost };
  /** Whether its timers may not keep the process alive on their own (default false). */
  readonly unref?: boolean;
}

/**
 * Keeps a lease alive while work runs (the watchdog of `using()`, a leader's renewals, an idempotency claim's
 * heartbeat): extends it every `intervalMs`, and calls `onLost` once — at the latest, when validity is tracked, when
 * it runs out without a successful extension (Redis frozen or unreachable), at the earliest on the first extension
 * that finds the lease gone or taken. It never extends after `stop()`, and an extension racing a release cannot
 * revive the lease: both compare the owner token in Redis.
 */
export class KeepAlive<TLost> {
  private tickTimer?: NodeJS.Timeout;
  private deadlineTimer?: NodeJS.Timeout;
  private stopped = false;

  constructor(private readonly options: KeepAliveOptions<TLost>) {}

  start(): this {
    this.armDeadline();
    this.scheduleTick();
    return this;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.tickTimer);
    clearTimeout(this.deadlineTimer);
  }

  private scheduleTick(): void {
    if (this.stopped) return;
    this.tickTimer = this.timer(() => void this.tick(), this.options.intervalMs);
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    let lost: TLost | undefined;
    try {
      lost = await this.options.extend();
    } catch (error) {
      if (this.stopped) return;
      // A transient failure (timeout, reconnect): the lease may still be ours until its validity ends; the
      // deadline timer decides, and the next tick tries again.
      this.options.onFailure(error);
      return this.scheduleTick();
    }
    if (this.stopped) return;
    if (lost !== undefined) return this.lose(lost);
    this.armDeadline();
    this.scheduleTick();
  }

  /** Fires when the current validity ends with no successful extension since. */
  private armDeadline(): void {
    const { validity } = this.options;
    if (!validity) return;
    clearTimeout(this.deadlineTimer);
    this.deadlineTimer = this.timer(() => this.lose(validity.expired()), Math.max(0, validity.remainingMs()));
  }

  private lose(reason: TLost): void {
    if (this.stopped) return;
    this.stop();
    this.options.onLost(reason);
  }

  private timer(callback: () => void, ms: number): NodeJS.Timeout {
    const timer = setTimeout(callback, ms);
    if (this.options.unref) timer.unref();
    return timer;
  }
}

/**
 * The keep-alive of a held {@link Lease}: extends it to `ttlMs` every `intervalMs`, and loses it (with its lost
 * error) when an extension finds it gone or its validity runs out before an extension succeeds. A transient failure
 * is logged as a warning and retried at the next tick.
 */
export function keepLeaseAlive<L extends Lease>(
  lease: L,
  ttlMs: number,
  intervalMs: number,
  onLost: (reason: LostOf<L>) => void,
  logger: LoggerService,
): KeepAlive<LostOf<L>> {
  // The lease's type parameter is its lost error, but TypeScript cannot resolve LostOf<L> for a generic L.
  const lostOf = (error: Error): LostOf<L> => error as LostOf<L>;
  return new KeepAlive<LostOf<L>>({
    intervalMs,
    extend: () => lease.renew(ttlMs).then((lost) => lost && lostOf(lost)),
    onLost,
    // Under the lock's logger context for every kind of lease, as when this watchdog was the lock's own: moving it
    // into the kernel changed no log line.
    onFailure: (error) => logger.warn?.(`Could not extend ${lease.label}: ${(error as Error).message}`, 'LockService'),
    validity: {
      remainingMs: () => lease.remainingMs,
      expired: () => lostOf(lease.lostError('its validity ran out before an extension succeeded')),
    },
  });
}
