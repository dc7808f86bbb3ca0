import type { LoggerService } from '@nestjs/common';

/**
 * A warning that may repeat on every call (an outage, a dropped event) is logged the first time, then at most once
 * per interval with the number of repeats in between, so a flood of failures cannot flood the log.
 */
export class ThrottledLog {
  private lastAt = Number.NEGATIVE_INFINITY;
  private suppressed = 0;

  constructor(
    private readonly logger: LoggerService,
    private readonly intervalMs = 10_000,
    /** `error` for what retrying cannot fix (a Redis refusal of the configuration), `warn` for outages. */
    private readonly level: 'warn' | 'error' = 'warn',
  ) {}

  /** `message` may be a function, called only when a line is written (a call that is only counted builds nothing). */
  warn(message: string | (() => string)): void {
    const now = Date.now();
    if (now - this.lastAt < this.intervalMs) {
      this.suppressed++;
      return;
    }
    if (typeof message === 'function') message = message();
    const more = this.suppressed ? ` (${this.suppressed} more since the last report)` : '';
    this.lastAt = now;
    this.suppressed = 0;
    if (this.level === 'error') this.logger.error(`${message}${more}`);
    else this.logger.warn(`${message}${more}`);
  }
}
