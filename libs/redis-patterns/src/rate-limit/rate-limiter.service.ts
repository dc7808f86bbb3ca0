import { type BeforeApplicationShutdown, Inject, Injectable, Logger, type LoggerService } from '@nestjs/common';
import { KeyBuilder } from '../core/keys/key-builder';
import { ThrottledLog } from '../core/logging/throttled-log';
import type { ResolvedRedisPatternsOptions } from '../redis-patterns.options';
import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { RedisRefusedError } from '../errors/redis-refused.error';
import { RATE_LIMIT_SETTINGS, type RateLimitSettings } from './rate-limit.options';
import { RESOLVED_OPTIONS } from '../redis-patterns.constants';
import { checkCost, compilePolicies, type CompiledPolicies, type PolicyErrorFactory } from './compile-policies';
import { BoundedEntries, MemoryRateLimiter } from './memory/memory-rate-limiter';
import type {
  RateLimitBalance,
  RateLimitConsumeOptions,
  RateLimitDecision,
  RateLimitOutageOptions,
  RateLimitPolicy,
} from './rate-limit-policy';
import { RateLimitDeniedError } from './rate-limit-denied.error';
import { RateLimitMetrics } from './rate-limit.metrics';
import { RATE_LIMIT_STORE, type RateLimitStore } from './rate-limit.store';
import { failOpenDecision, toDecision } from './to-decision';
import { keyLabel, keyParts, type RateLimitKey } from './rate-limit-key';

const NO_OPTIONS: RateLimitConsumeOptions = Object.freeze({});

/** The limiter name metrics give every direct `consume()` call. */
const CONSUME_METRIC_NAME = 'RateLimiterService.consume';

const argumentError: PolicyErrorFactory = (field, expected, received) =>
  new InvalidArgumentError(field, `expected ${expected}, received ${received}`);

/** Counters of decisions taken without Redis, since startup. */
export interface RateLimitOutageStats {
  /** Decisions allowed without counting, because Redis did not answer and the limiter fails open. */
  failedOpen: number;
  /** Decisions denied (`RateLimitDeniedError`, reason `unavailable`) because Redis did not answer and the limiter fails closed. */
  failedClosed: number;
  /** Decisions taken by the per-instance in-memory fallback while Redis did not answer. */
  inMemory: number;
}

/**
 * Rate limiting on Redis: fixed window, sliding log, sliding counter, token bucket and GCRA. Each decision is one
 * Lua script (one round trip, Redis time) over every policy of the call, all-or-nothing. A key is a string or its
 * parts (see {@link RateLimitKey}).
 *
 * @example
 * const decision = await limiter.consume(['login', email.normalize('NFKC').trim().toLowerCase()], [
 *   { algorithm: 'sliding-log', limit: 5, windowMs: 60_000 },
 *   { algorithm: 'fixed-window', limit: 50, windowMs: 86_400_000 },
 * ]);
 * if (!decision.allowed) throw new TooManyRequests(decision.retryAfterMs);
 */
@Injectable()
export class RateLimiterService implements BeforeApplicationShutdown {
  private readonly memory: MemoryRateLimiter;
  private readonly logger: LoggerService;
  private readonly stats: RateLimitOutageStats = { failedOpen: 0, failedClosed: 0, inMemory: 0 };
  private readonly outageLog: ThrottledLog;
  // A refusal repeats on every decision until the server is reconfigured: an error line, throttled like outages.
  private readonly refusalLog: ThrottledLog;
  private readonly metrics = new RateLimitMetrics();

  /** Created by the module's dependency injection; not part of the public API. @internal */
  constructor(
    @Inject(RESOLVED_OPTIONS) options: ResolvedRedisPatternsOptions,
    @Inject(RATE_LIMIT_SETTINGS) private readonly settings: RateLimitSettings,
    private readonly keys: KeyBuilder,
    @Inject(RATE_LIMIT_STORE) private readonly store: RateLimitStore,
  ) {
    this.memory = new MemoryRateLimiter(new BoundedEntries(settings.inMemoryMaxEntries));
    this.logger = options.logger ?? new Logger('RedisPatterns:RateLimit');
    this.outageLog = new ThrottledLog(this.logger);
    this.refusalLog = new ThrottledLog(this.logger, undefined, 'error');
  }

  /**
   * Consumes `cost` units (default 1) for `key` from every policy, atomically: allowed only if every policy allows,
   * and then consumed from all of them; a denial consumes from none.
   *
   * @throws InvalidArgumentError naming the field (e.g. `policy[1].windowMs`, `cost`) before anything is written.
   * @throws RateLimitDeniedError (reason `unavailable`) when Redis cannot decide and the limiter fails closed.
   * @throws RedisRefusedError when Redis refuses the limiter (an ACL without scripting, a renamed command, a key of
   *   another type): a configuration error, never failed open nor decided in memory, whatever `failOpen` says.
   */
  consume(
    key: RateLimitKey,
    policy: RateLimitPolicy | readonly RateLimitPolicy[],
    options?: RateLimitConsumeOptions,
  ): Promise<RateLimitDecision> {
    try {
      const parts = keyParts(key);
      const compiled = compilePolicies(policy, 'policy', argumentError);
      const cost = checkCost(options?.cost, compiled, argumentError);
      // The key names the limiter in errors and logs; metrics get one name for every direct call (keys are unbounded).
      return this.decide(parts, compiled, cost, options ?? NO_OPTIONS, keyLabel(parts), CONSUME_METRIC_NAME);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Gives `cost` units (default 1) back to `key` in every policy, atomically, never below an empty budget: e.g. for
   * a request that failed for reasons not the caller's. The newest hits go first (sliding log); a token bucket is
   * never filled above its capacity. A block (`blockDurationMs`) in force is not lifted. Resolves to each policy's
   * state afterwards.
   *
   * @throws InvalidArgumentError naming the field, before anything is written.
   * @throws RateLimitDeniedError (reason `unavailable`) when Redis cannot answer (nothing is refunded; the in-memory fallback is not
   *   touched).
   * @throws RedisRefusedError when Redis refuses the script (a configuration error).
   */
  refund(key: RateLimitKey, policy: RateLimitPolicy | readonly RateLimitPolicy[], cost?: number): Promise<readonly RateLimitBalance[]> {
    return this.adjust(key, policy, cost, -1);
  }

  /**
   * Takes `cost` units (default 1) from `key` in every policy without a decision, atomically, never beyond the limit:
   * e.g. for a failed login counted against the caller. Does not start a block. Resolves to each policy's state.
   *
   * @throws InvalidArgumentError naming the field, before anything is written.
   * @throws RateLimitDeniedError (reason `unavailable`) when Redis cannot answer.
   * @throws RedisRefusedError when Redis refuses the script (a configuration error).
   */
  penalize(key: RateLimitKey, policy: RateLimitPolicy | readonly RateLimitPolicy[], cost?: number): Promise<readonly RateLimitBalance[]> {
    return this.adjust(key, policy, cost, 1);
  }

  /** Forgets the state of `key` under these policies (in Redis and in the in-memory fallback). */
  async reset(key: RateLimitKey, policy: RateLimitPolicy | readonly RateLimitPolicy[]): Promise<void> {
    const keys = this.keysFor(keyParts(key), compilePolicies(policy, 'policy', argumentError));
    this.memory.delete(keys);
    await this.store.reset(keys);
  }

  /** Stops the limiter's metrics. */
  beforeApplicationShutdown(): void {
    this.metrics.close();
  }

  /** Decisions taken without Redis since startup (fail-open, fail-closed, in-memory). */
  outageStats(): Readonly<RateLimitOutageStats> {
    return { ...this.stats };
  }

  /**
   * The decision for an already compiled limiter (used by `@RateLimit`); `identity` is the limiter key's parts,
   * `limiter` its name for errors, logs and metrics (`metricName` when those differ). A refusal by Redis
   * (RedisRefusedError) rejects the decision whatever the outage policy: only outages fail open or fall back.
   * @internal
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
    // The connection's liveness (core/connections/connection-liveness.ts): down from the first command that went
    // unanswered until a probe answers, so no decision is spent finding out.
    const down = this.store.outage;
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

  private async adjust(
    key: RateLimitKey,
    policy: RateLimitPolicy | readonly RateLimitPolicy[],
    cost: number | undefined,
    sign: 1 | -1,
  ): Promise<readonly RateLimitBalance[]> {
    const parts = keyParts(key);
    const label = keyLabel(parts);
    const compiled = compilePolicies(policy, 'policy', argumentError);
    const units = checkCost(cost, compiled, argumentError);
    const outage = this.store.outage;
    if (outage !== undefined) throw new RateLimitDeniedError(label, 'unavailable', { cause: outage });
    // State keys only: a refund or penalty leaves blocks as they are.
    const keys = this.keysFor(parts, compiled).slice(0, compiled.policies.length);
    let reply: number[];
    try {
      reply = await this.store.adjust(keys, compiled, sign * units);
    } catch (error) {
      if (error instanceof RedisRefusedError) {
        this.logRefusal(error, label);
        throw error;
      }
      throw this.store.isOutage(error) ? new RateLimitDeniedError(label, 'unavailable', { cause: error }) : error;
    }
    return compiled.policies.map((p, i) => ({ limit: p.limit, remaining: Number(reply[2 * i]), resetMs: Number(reply[2 * i + 1]) }));
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

  private logRefusal(error: RedisRefusedError, limiter: string): void {
    this.refusalLog.warn(`Rate limiter "${limiter}" failed closed: ${error.message}`);
  }

  // One key per policy, all in the identity's slot group (one slot on a cluster); each part escaped on its own.
  private keysFor(identity: readonly string[], compiled: CompiledPolicies): string[] {
    const group = this.keys.slotGroup('rl', ...identity);
    const suffixes = compiled.keySuffixes;
    const keys = new Array<string>(suffixes.length);
    for (let i = 0; i < keys.length; i++) keys[i] = group + suffixes[i];
    return keys;
  }
}
