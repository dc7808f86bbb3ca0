import { randomBytes } from 'node:crypto';
import { ReplyError } from 'ioredis';
import type { RedisExecutor } from '../core/scripts/redis-executor';
import { RedisRefusedError } from '../errors/redis-refused.error';
import type { CompiledPolicies } from './compile-policies';
import { scriptArgs } from './script-call';
import { ADJUST_SCRIPT } from './scripts/adjust.script';

/**
 * Where rate-limit state lives. `consume` decides every policy of a limiter for one identity at once,
 * all-or-nothing, and answers `[allowed, then per policy: remaining, resetMs, retryAfterMs]` (see to-decision.ts).
 */
export interface RateLimitStore {
  /** What a decision of this store reports as its `source`. */
  readonly source: 'redis' | 'memory';
  /** `keys`: one per policy, in the identity's slot group. Rejects when the store cannot decide. */
  consume(keys: readonly string[], compiled: CompiledPolicies, cost: number): Promise<number[]>;
  /**
   * Moves every policy's state by `delta` units (negative: a refund), each kept within 0 and its limit; answers
   * `[per policy: remaining, resetMs]`. `keys`: the state keys only (no block keys).
   */
  adjust(keys: readonly string[], compiled: CompiledPolicies, delta: number): Promise<number[]>;
  /** Forgets the state under these keys. */
  reset(keys: readonly string[]): Promise<void>;
  /**
   * While the server that holds `keys` is known not to answer, the error that took it down (undefined otherwise): a
   * decision then applies the outage policy at once.
   */
  outageFor(keys: readonly string[]): unknown;
  /** Whether a failure means the store is unreachable, not that it answered with an error. */
  isOutage(error: unknown): boolean;
}

/** Injection token of the pattern's {@link RateLimitStore}. */
export const RATE_LIMIT_STORE = Symbol('RedisPatterns:RateLimitStore');

/**
 * Rate limits on Redis: one script per decision (one round trip, Redis time), the decisions of one event-loop turn
 * sharing one EVALSHA.
 */
export class RedisRateLimitStore implements RateLimitStore {
  readonly source = 'redis';
  // Sliding-log members must be unique: a random per-process prefix and a counter (no crypto call per decision).
  private readonly nonceBase = randomBytes(6).toString('base64url');
  private sequence = 0;
  private readonly nextNonce = (): string => this.nonceBase + (this.sequence++).toString(36);

  constructor(private readonly redis: RedisExecutor) {}

  consume(keys: readonly string[], compiled: CompiledPolicies, cost: number): Promise<number[]> {
    const { call } = compiled;
    return this.redis.run(call.script, keys, scriptArgs(call, cost, this.nextNonce));
  }

  adjust(keys: readonly string[], compiled: CompiledPolicies, delta: number): Promise<number[]> {
    const log = compiled.policies.some((p) => p.algorithm === 'sliding-log');
    return this.redis.run(ADJUST_SCRIPT, keys, [String(delta), log ? this.nextNonce() : '', ...compiled.args.map(String)]);
  }

  async reset(keys: readonly string[]): Promise<void> {
    // One DEL: the keys share the identity's hash tag, so one slot.
    await this.redis.call('del', keys);
  }

  // The connection's own view (see ConnectionLiveness; on a cluster, of the keys' master): no breaker of the limiter's own.
  outageFor(keys: readonly string[]): unknown {
    return this.redis.outageFor(keys[0]);
  }

  /**
   * A reply error (a script error, OOM) or a refusal (NOPERM, WRONGTYPE …) shows Redis is reachable; anything else
   * (timeout, closed) is an outage.
   */
  isOutage(error: unknown): boolean {
    return !(error instanceof ReplyError) && !(error instanceof RedisRefusedError);
  }
}
