import { type CacheResult, CacheMetrics } from '../cache.metrics';
import type { LoggerService } from '@nestjs/common';
import { redactSecrets } from '../../core/connections/redact';
import { ThrottledLog } from '../../core/logging/throttled-log';
import { CircuitBreaker } from '../../core/resilience/circuit-breaker';
import type { CacheSettings } from '../cache.options';

/** Counters of the cache's outcomes since startup, as returned by `CacheService.stats()`. */
export interface CacheStats {
  /** Reads answered with a fresh value. */
  hits: number;
  /** Reads that found nothing usable. */
  misses: number;
  /** Reads answered with a value past its fresh TTL, inside its stale window. */
  staleHits: number;
  /** Loader (or method) runs on a miss. */
  loads: number;
  /** Background refreshes started (stale-while-revalidate or early refresh). */
  refreshes: number;
  /** Redis calls that failed or timed out; the caller was served from the source. */
  errors: number;
  /** Calls that skipped Redis because the breaker was open. */
  bypassed: number;
  /** Results not stored: too large, not serializable, or overtaken by an invalidation. */
  skippedWrites: number;
}

/**
 * The cache's outage policy (invariant 6: fail open). Every Redis failure counts; the log gets at most one line
 * per `failureLogIntervalMs` (with the number of failures it stands for), not one per request. After
 * `breakerThreshold` consecutive failures the cache stops calling Redis for `breakerCooldownMs`, so callers stop
 * paying the command timeout; after the cooldown calls go through again, and the first success closes the breaker.
 */
export class CacheHealth {
  readonly stats: CacheStats = { hits: 0, misses: 0, staleHits: 0, loads: 0, refreshes: 0, errors: 0, bypassed: 0, skippedWrites: 0 };
  private readonly metrics = new CacheMetrics();
  private lastFailureAt = 0;
  private readonly log: ThrottledLog;
  private readonly breaker: CircuitBreaker;

  constructor(
    private readonly settings: CacheSettings,
    logger: LoggerService,
  ) {
    this.log = new ThrottledLog(logger, settings.failureLogIntervalMs);
    this.breaker = new CircuitBreaker({ threshold: settings.breakerThreshold, cooldownMs: settings.breakerCooldownMs });
  }

  /** False while the breaker is open: the caller skips Redis and goes to the source. */
  available(): boolean {
    // Past the cooldown the breaker is half-open: calls go through, and the next failure re-opens it at once.
    if (!this.breaker.isOpen) return true;
    this.stats.bypassed++;
    return false;
  }

  /**
   * False while the breaker is open and for one cooldown after any failure: fills and writes (fill lock, tag epochs,
   * the write) then skip Redis, so a miss during an outage costs one command deadline (its read), not one per step.
   */
  writable(): boolean {
    return this.available() && Date.now() - this.lastFailureAt >= this.settings.breakerCooldownMs;
  }

  succeeded(): void {
    this.breaker.succeeded();
  }

  /**
   * The connection is ready again (reconnected and answering): close the breaker now. During an outage every call
   * fails at once and re-opens it, so the last cooldown starts just before the server returns and would otherwise
   * keep the cache bypassed for up to `breakerCooldownMs` after the connection is back.
   */
  connectionReady(): void {
    this.breaker.close();
    this.lastFailureAt = 0;
  }

  /** Stops reporting metrics (the application is closing). */
  close(): void {
    this.metrics.close();
  }

  /** Counts how a read was answered, in `stats()` and the requests metric. */
  answered(result: Exclude<CacheResult, 'error'>): void {
    if (result === 'miss') this.stats.misses++;
    else if (result === 'stale') this.stats.staleHits++;
    else this.stats.hits++;
    this.metrics.request(result);
  }

  /** Counts a run of the source on a miss, begun at `startedAt` (a `performance.now()` reading). */
  loaded(startedAt: number): void {
    this.stats.loads++;
    this.metrics.loaded(startedAt);
  }

  /** Records a Redis failure of `operation` (never rethrown: the cache fails open). */
  failed(operation: string, error: unknown): void {
    this.stats.errors++;
    this.metrics.request('error');
    this.lastFailureAt = Date.now();
    this.breaker.failed(error);
    this.report(`Cache ${operation} failed; serving from the source (fail-open): ${describe(error)}`);
  }

  /** Logs a non-Redis problem (a value too large, a refused serialization) under the same rate limit. */
  warn(message: string): void {
    this.report(message);
  }

  private report(message: string): void {
    this.log.warn(message);
  }
}

function describe(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return redactSecrets(text.length > 200 ? `${text.slice(0, 200)}…` : text);
}
