import { type CacheResult, CacheMetrics } from '../cache.metrics';
import type { LoggerService } from '@nestjs/common';
import { redactSecrets } from '../../core/connections/redact';
import { ThrottledLog } from '../../core/logging/throttled-log';
import { RedisRefusedError } from '../../errors/redis-refused.error';
import type { CacheSettings } from '../cache.options';
import type { CacheStore } from '../cache.store';

/** How many distinct one-time warnings are remembered; past it they go through the rate-limited log. */
const MAX_ONCE_WARNINGS = 1000;

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
  /**
   * Calls answered with a value past its fresh TTL because the loader failed (`graceMs`), ran past a timeout
   * (`softTimeoutMs`, `hardTimeoutMs`), or failed a moment ago and waits for `cache.graceRetryMs`.
   */
  graceAnswers: number;
  /** Calls that stopped waiting for their loader at `hardTimeoutMs` with no value to answer (`CacheLoadTimeoutError`). */
  loadTimeouts: number;
  /** Background refreshes started (stale-while-revalidate or early refresh). */
  refreshes: number;
  /** Redis calls that failed or timed out; the caller was served from the source. */
  errors: number;
  /**
   * Calls that skipped Redis because its server was known not to answer (the connection's liveness: down from the
   * first command that went unanswered until a probe answers; on a cluster, per master).
   */
  bypassed: number;
  /** Results not stored: too large, not serializable, or overtaken by an invalidation. */
  skippedWrites: number;
  /**
   * Commands Redis refused for a configuration reason (`RedisRefusedError`: an ACL without a permission, a disabled
   * command, a key of another type). Not outages: they neither take the connection down nor count in `errors`, and
   * are logged at error level.
   */
  refusals: number;
}

/**
 * The cache's outage policy (invariant 6: fail open). Every Redis failure counts; the log gets at most one line
 * per `failureLogIntervalMs` (with the number of failures it stands for), not one per request. Whether Redis answers
 * is the connection's view, not the cache's (core/connections/connection-liveness.ts): from the first command that
 * went unanswered until a probe answers, every cache call skips Redis for the source at once — on a cluster, the
 * calls whose keys the silent master serves — so a miss during an outage costs at most one command deadline, its
 * read's. A refusal (`RedisRefusedError`) is no outage: it is counted in `refusals` and logged at error level.
 */
export class CacheHealth {
  readonly stats: CacheStats = {
    hits: 0,
    misses: 0,
    staleHits: 0,
    loads: 0,
    graceAnswers: 0,
    loadTimeouts: 0,
    refreshes: 0,
    errors: 0,
    bypassed: 0,
    skippedWrites: 0,
    refusals: 0,
  };
  private readonly metrics = new CacheMetrics();
  private readonly log: ThrottledLog;
  /** Refusals at error level, under their own rate limit: a stream of outage warnings must not hide them. */
  private readonly refusalLog: ThrottledLog;
  private readonly warnedOnce = new Set<string>();

  /** @param store - whose view of whether the server holding a key answers the cache reads (`outageFor`) */
  constructor(
    settings: CacheSettings,
    private readonly logger: LoggerService,
    private readonly store: Pick<CacheStore, 'outageFor'>,
  ) {
    this.log = new ThrottledLog(logger, settings.failureLogIntervalMs);
    this.refusalLog = new ThrottledLog(logger, settings.failureLogIntervalMs, 'error');
  }

  /**
   * False while the server that holds `key` (without `key`: the connection's single server) is known not to
   * answer: the caller skips Redis and goes to the source, counted in `bypassed` and logged under the same rate
   * limit as failures (the outage may have been found by another pattern's command).
   */
  available(key?: string): boolean {
    const down = this.store.outageFor(key);
    if (down === undefined) return true;
    this.stats.bypassed++;
    this.log.warn(() => `Cache skipped Redis; serving from the source (fail-open): ${describe(down)}`);
    return false;
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

  /**
   * Records a Redis failure of `operation`; the caller serves from the source. A refusal ({@link RedisRefusedError}) is a configuration error: counted apart and logged at error level (callers
   * of explicit writes rethrow it, see {@link isRefusal}).
   */
  failed(operation: string, error: unknown): void {
    if (error instanceof RedisRefusedError) {
      this.stats.refusals++;
      this.metrics.request('error');
      this.refusalLog.warn(`Cache ${operation} refused; serving from the source: ${redactSecrets(error.message)}`);
      return;
    }
    this.stats.errors++;
    this.metrics.request('error');
    this.report(`Cache ${operation} failed; serving from the source (fail-open): ${describe(error)}`);
  }

  /** Logs a non-Redis problem (a value too large, a refused serialization) under the same rate limit. */
  warn(message: string): void {
    this.report(message);
  }

  /**
   * Logs `message` the first time `key` is seen, unthrottled: a warning about code (a decorated method whose argument
   * cannot be a key) rather than about Redis, which repeats on every call but says nothing new.
   */
  warnOnce(key: string, message: string): void {
    if (this.warnedOnce.has(key)) return;
    if (this.warnedOnce.size >= MAX_ONCE_WARNINGS) {
      this.report(message);
      return;
    }
    this.warnedOnce.add(key);
    this.logger.warn(message);
  }

  private report(message: string): void {
    this.log.warn(message);
  }
}

function describe(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return redactSecrets(text.length > 200 ? `${text.slice(0, 200)}…` : text);
}

/** Whether an error is Redis refusing a command for a configuration reason (never failed open by explicit writes). */
export function isRefusal(error: unknown): error is RedisRefusedError {
  return error instanceof RedisRefusedError;
}

/** The logger seen through ThrottledLog's `warn`, writing at error level. */
