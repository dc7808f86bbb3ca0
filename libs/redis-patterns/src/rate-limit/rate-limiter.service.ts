import { Inject, Injectable } from '@nestjs/common';
import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { RedisRefusedError } from '../errors/redis-refused.error';
import { checkCost, compilePolicies, type PolicyErrorFactory } from './compile-policies';
import type { RateLimitBalance, RateLimitConsumeOptions, RateLimitDecision, RateLimitPolicy } from './rate-limit-policy';
import { RateLimitDeniedError } from './rate-limit-denied.error';
import { RateLimitRuntime } from './rate-limit.runtime';
import { RATE_LIMIT_STORE, type RateLimitStore } from './rate-limit.store';
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
export class RateLimiterService {
  /** Created by the module's dependency injection; not part of the public API. @internal */
  constructor(
    @Inject(RATE_LIMIT_STORE) private readonly store: RateLimitStore,
    private readonly runtime: RateLimitRuntime,
  ) {
    runtime.serve(this);
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
      return this.runtime.decide(parts, compiled, cost, options ?? NO_OPTIONS, keyLabel(parts), CONSUME_METRIC_NAME);
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
    const keys = this.runtime.keysFor(keyParts(key), compilePolicies(policy, 'policy', argumentError));
    this.runtime.memory.delete(keys);
    await this.store.reset(keys);
  }

  /** Decisions taken without Redis since startup (fail-open, fail-closed, in-memory). */
  outageStats(): Readonly<RateLimitOutageStats> {
    return { ...this.runtime.stats };
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
    // State keys only: a refund or penalty leaves blocks as they are.
    const keys = this.runtime.keysFor(parts, compiled).slice(0, compiled.policies.length);
    const outage = this.store.outageFor(keys);
    if (outage !== undefined) throw new RateLimitDeniedError(label, 'unavailable', { cause: outage });
    let reply: number[];
    try {
      reply = await this.store.adjust(keys, compiled, sign * units);
    } catch (error) {
      if (error instanceof RedisRefusedError) {
        this.runtime.logRefusal(error, label);
        throw error;
      }
      throw this.store.isOutage(error) ? new RateLimitDeniedError(label, 'unavailable', { cause: error }) : error;
    }
    return compiled.policies.map((p, i) => ({ limit: p.limit, remaining: Number(reply[2 * i]), resetMs: Number(reply[2 * i + 1]) }));
  }
}
