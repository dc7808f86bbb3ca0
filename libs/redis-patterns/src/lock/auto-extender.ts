import type { LoggerService } from '@nestjs/common';
import { LockLostError } from './lock-lost.error';
import type { Lock } from './lock';

/**
 * Keeps a lock alive while work runs (the watchdog of `using()`): extends it every `intervalMs`, and calls
 * `onLost` once — at the latest when the lock's validity runs out without a successful extension (Redis frozen
 * or unreachable), at the earliest on the first extension that finds the lock gone or taken. It never extends
 * after `stop()`, and an extension racing a release cannot revive the lock: both compare the owner token in Redis.
 */
export class AutoExtender {
  private tickTimer?: NodeJS.Timeout;
  private deadlineTimer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly lock: Lock,
    private readonly ttlMs: number,
    private readonly intervalMs: number,
    private readonly onLost: (reason: LockLostError) => void,
    private readonly logger: LoggerService,
  ) {}

  start(): void {
    this.armDeadline();
    this.scheduleTick();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.tickTimer);
    clearTimeout(this.deadlineTimer);
  }

  private scheduleTick(): void {
    if (this.stopped) return;
    this.tickTimer = setTimeout(() => void this.tick(), this.intervalMs);
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    try {
      await this.lock.extend(this.ttlMs);
      if (this.stopped) return;
      this.armDeadline();
    } catch (error) {
      if (this.stopped) return;
      if (error instanceof LockLostError) return this.lose(error);
      // A transient failure (timeout, reconnect): the lock may still be ours until its validity ends; the
      // deadline timer decides, and the next tick tries again.
      this.logger.warn?.(`Could not extend ${this.lock.label}: ${(error as Error).message}`, 'LockService');
    }
    this.scheduleTick();
  }

  /** Fires when the current validity ends with no successful extension since. */
  private armDeadline(): void {
    clearTimeout(this.deadlineTimer);
    this.deadlineTimer = setTimeout(
      () => this.lose(this.lock.lostError('its validity ran out before an extension succeeded')),
      Math.max(0, this.lock.remainingMs),
    );
  }

  private lose(reason: LockLostError): void {
    if (this.stopped) return;
    this.stop();
    this.onLost(reason);
  }
}
