import { type BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import { KeyBuilder } from '../core/keys/key-builder';
import { ThrottledLog } from '../core/logging/throttled-log';
import { RedisRefusedError } from '../errors/redis-refused.error';
import { RESOLVED_OPTIONS } from '../redis-patterns.constants';
import type { ResolvedRedisPatternsOptions } from '../redis-patterns.options';
import type { CompiledPolicies } from './compile-policies';
import { BoundedEntries, MemoryRateLimiter } from './memory/memory-rate-limiter';
import type { RateLimitDecision, RateLimitOutageOptions } from './rate-limit-policy';
import { RateLimitDeniedError } from './rate-limit-denied.error';
import { RateLimitMetrics } from './rate-limit.metrics';
import { RATE_LIMIT_SETTINGS, type RateLimitSettings } from './rate-limit.options';
import { RATE_LIMIT_STORE, type RateLimitStore } from './rate-limit.store';
import type { RateLimiterService, RateLimitOutageStats } from './rate-limiter.service';
import { failOpenDecision, toDecision } from './to-decision';

/** The runtime of each RateLimiterService, for code that is handed the service only (the throttler storage). */
const runtimes = new WeakMap<RateLimiterService, RateLimitRuntime>();

/**
 * The rate limiter's decisions and what they share — budget keys, the in-memory fallback, outage counters, metrics
 * and logs — used by `RateLimiterService`, `RateLimitGuard` and `@RateLimit`'s advisor, which inject it rather than
 * reach through the public service: every decision of the instance is counted and fails over the same way.
 */
@Injectable()
export class RateLimitRuntime implements BeforeApplicationShutdown {
  /** The per-instance fallback while Redis does not answer. */
  readonly memory: MemoryRateLimiter;
  readonly stats: RateLimitOutageStats = { failedOpen: 0, failedClosed: 0, inMemory: 0 };
  private readonly outageLog: ThrottledLog;
  // A refusal repeats on every decision until the server is reconfigured: an error line, throttled like outages.
  private readonly refusalLog: ThrottledLog;
  private readonly metrics = new RateLimitMetrics();

  constructor(
    @Inject(RESOLVED_OPTIONS) options: ResolvedRedisPatternsOptions,
    @Inject(RATE_LIMIT_SETTINGS) private readonly settings: RateLimitSettings,
    private readonly keys: KeyBuilder,
    @Inject(RATE_LIMIT_STORE) private readonly store: RateLimitStore,
  ) {
    this.memory = new MemoryRateLimiter(new BoundedEntries(settings.inMemoryMaxEntries));
    const logger = options.logger ?? new Logger('RedisPatterns:RateLimit');
    this.outageLog = new ThrottledLog(logger);
    this.refusalLog = new ThrottledLog(logger, undefined, 'error');
  }

  /** The runtime behind `limiter` (what `RedisPatternsThrottlerStorage` is given); undefined for any other object. */
  static of(limiter: RateLimiterService): RateLimitRuntime | undefined {
    return runtimes.get(limiter);
  }

  /** Makes this runtime the one {@link RateLimitRuntime.of} finds for `limiter`. */
  serve(limiter: RateLimiterService): void {
    runtimes.set(limiter, this);
  }

  /**
   * The decision for an already compiled limiter; `identity` is the limiter key's parts, `limiter` its name for
   * errors, logs and metrics (`metricName` when those differ). A refusal by Redis (RedisRefusedError) rejects the
   * decision whatever the outage policy: only outages fail open or fall back.
   */
  decide(
    identity: readonly string[],
    compiled: CompiledPolicies,
    cost: number,
    outage: RateLimitOutageOptions,
    limiter: string,
    metricName: string = limiter,
  ): Promise<RateLimitDecision> {
    const startedAt = performance.now();
    const keys = this.keysFor(identity, compiled);
    const without = (error: unknown): RateLimitDecision =>
      this.withoutRedis(error, keys, compiled, cost, outage, limiter, metricName, startedAt);
    // The connection's liveness (core/connections/connection-liveness.ts; on a cluster, the keys' master's): down from
    // the first command that went unanswered until a probe answers, so no decision is spent finding out.
    const down = this.store.outageFor(keys);
    if (down !== undefined) {
      try {
        return Promise.resolve(without(down));
      } catch (error) {
        return Promise.reject(error);
      }
    }
    let pending: Promise<number[]>;
    try {
      pending = this.store.consume(keys, compiled, cost);
    } catch (error) {
      pending = Promise.reject(error);
    }
    return pending.then(
      (reply) => {
        const decision = toDecision(reply, compiled, this.store.source);
        this.metrics.record(metricName, decision.allowed ? 'allowed' : 'denied', startedAt);
        return decision;
      },
      (error: unknown) => {
        if (!(error instanceof RedisRefusedError)) return without(error);
        this.metrics.record(metricName, 'failed_closed', startedAt);
        this.logRefusal(error, limiter);
        throw error;
      },
    );
  }

  /** Stops the limiter's metrics. */
  beforeApplicationShutdown(): void {
    this.metrics.close();
  }

  logRefusal(error: RedisRefusedError, limiter: string): void {
    this.refusalLog.warn(`Rate limiter "${limiter}" failed closed: ${error.message}`);
  }

  // One key per policy, all in the identity's slot group (one slot on a cluster); each part escaped on its own.
  keysFor(identity: readonly string[], compiled: CompiledPolicies): string[] {
    const group = this.keys.slotGroup('rl', ...identity);
    const suffixes = compiled.keySuffixes;
    const keys = new Array<string>(suffixes.length);
    for (let i = 0; i < keys.length; i++) keys[i] = group + suffixes[i];
    return keys;
  }

  private withoutRedis(
    error: unknown,
    keys: string[],
    compiled: CompiledPolicies,
    cost: number,
    outage: RateLimitOutageOptions,
    limiter: string,
    metricName: string,
    startedAt: number,
  ): RateLimitDecision {
    if (error !== undefined) {
      this.logOutage(error, limiter, outage);
    }
    const inMemory = outage.inMemoryFallback ?? this.settings.inMemoryFallback;
    const failOpen = outage.failOpen ?? this.settings.failOpen;
    if (inMemory) {
      this.stats.inMemory++;
      this.metrics.record(metricName, 'fallback', startedAt);
      return toDecision(this.memory.consume(keys, compiled, cost), compiled, 'memory');
    }
    if (failOpen) {
      this.stats.failedOpen++;
      this.metrics.record(metricName, 'failed_open', startedAt);
      return failOpenDecision(compiled);
    }
    this.stats.failedClosed++;
    this.metrics.record(metricName, 'failed_closed', startedAt);
    throw new RateLimitDeniedError(limiter, 'unavailable', { cause: error });
  }

  // An outage fails every request: log the first failure, then at most one line every 10 s.
  private logOutage(error: unknown, limiter: string, outage: RateLimitOutageOptions): void {
    const inMemory = outage.inMemoryFallback ?? this.settings.inMemoryFallback;
    const policy = inMemory ? 'in-memory fallback' : (outage.failOpen ?? this.settings.failOpen) ? 'failing open' : 'failing closed';
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    this.outageLog.warn(`Rate limiter "${limiter}" could not reach Redis, ${policy}: ${reason}`);
  }
}
