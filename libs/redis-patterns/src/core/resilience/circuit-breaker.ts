/** Settings of a {@link CircuitBreaker}: what opens it, and what closes it again. */
export interface CircuitBreakerSettings {
  /** Consecutive failures that open the breaker. */
  readonly threshold: number;
  /**
   * How long the breaker stays open, in ms, before calls go through again (half-open: the next failure re-opens it
   * at once, a success closes it). 0: the breaker never opens.
   */
  readonly cooldownMs: number;
}

/**
 * The cache's circuit breaker: remembers that Redis is failing, so that during an outage callers go to the source at
 * once instead of each paying the command deadline. Closed again by its cooldown (the next call probes) or at once
 * when the connection is known to be back. Connection-level liveness, which every other pattern reads, is
 * core/connections/connection-liveness.ts; the cache keeps this breaker because its threshold and cooldown are
 * public options (`cache.breakerThreshold`, `cache.breakerCooldownMs`).
 */
export class CircuitBreaker {
  private consecutive = 0;
  private openUntil = 0;

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

  /** A call failed; opens the breaker once `threshold` failures follow each other. */
  failed(): void {
    if (++this.consecutive < this.settings.threshold) return;
    if (this.settings.cooldownMs > 0) this.openUntil = Date.now() + this.settings.cooldownMs;
  }

  /** Closes the breaker now (the connection is known to be back). */
  close(): void {
    this.consecutive = 0;
    this.openUntil = 0;
  }
}
