/** Settings of a {@link CircuitBreaker}: what opens it, and what closes it again. */
export interface CircuitBreakerSettings {
  /** Consecutive counted failures that open the breaker. */
  readonly threshold: number;
  /**
   * How long the breaker stays open, in ms, before calls go through again (half-open: the next counted failure
   * re-opens it at once, a success closes it). 0 with no probe: the breaker never opens.
   */
  readonly cooldownMs?: number;
  /**
   * Instead of a cooldown: while open, this check runs every `probeMs` in the background, and its success closes
   * the breaker — no call is let through to find out.
   */
  readonly probe?: () => Promise<unknown>;
  readonly probeMs?: number;
  /** Which failures count (default: all). */
  readonly counts?: (error: unknown) => boolean;
}

/**
 * The one circuit breaker of the library: remembers that Redis is failing, so that during an outage callers decide
 * at once (fail open, fail closed, fall back) instead of each paying the command deadline, and nothing piles up in
 * a frozen server's socket to be applied when it comes back. Closed again by a cooldown (the cache: calls probe) or
 * by a background probe (the rate limiter: no decision is spent on probing).
 */
export class CircuitBreaker {
  private consecutive = 0;
  private openUntil = 0;
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(private readonly settings: CircuitBreakerSettings) {}

  /** True while callers should skip Redis. Past its cooldown the breaker reads as closed (half-open). */
  get isOpen(): boolean {
    if (this.openUntil === 0) return false;
    if (Date.now() < this.openUntil) return true;
    this.openUntil = 0;
    return false;
  }

  /** A call succeeded: consecutive failures start again from zero. */
  succeeded(): void {
    this.consecutive = 0;
  }

  /** A call failed; opens the breaker once `threshold` counted failures follow each other. */
  failed(error: unknown): void {
    const { threshold, cooldownMs = 0, probe, counts } = this.settings;
    if (this.stopped || (counts && !counts(error))) return;
    if (++this.consecutive < threshold) return;
    if (probe) {
      if (this.openUntil === 0) {
        this.openUntil = Number.POSITIVE_INFINITY;
        this.schedule(probe);
      }
      return;
    }
    if (cooldownMs > 0) this.openUntil = Date.now() + cooldownMs;
  }

  /** Closes the breaker now (the connection is known to be back). */
  close(): void {
    this.consecutive = 0;
    this.openUntil = 0;
    clearTimeout(this.timer);
  }

  /** Closes the breaker for good: no probe runs after this (application shutdown). */
  stop(): void {
    this.stopped = true;
    this.close();
  }

  private schedule(probe: () => Promise<unknown>): void {
    this.timer = setTimeout(() => {
      probe().then(
        () => this.close(),
        () => this.stopped || this.schedule(probe),
      );
    }, this.settings.probeMs ?? 250);
    this.timer.unref();
  }
}
