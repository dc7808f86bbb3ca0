import { InvalidArgumentError } from '../../errors/invalid-argument.error';
import { describeValue } from '../../core/options/option-checks';
import { compilePolicies, expectedAlgorithm, type PolicyErrorFactory } from '../compile-policies';
import type { WindowPolicy } from '../rate-limit-policy';
import type { RateLimiterService } from '../rate-limiter.service';
import { RateLimitRuntime } from '../rate-limit.runtime';

/** What `@nestjs/throttler`'s `ThrottlerStorage.increment` resolves to (declared here: the package is not a dependency). */
export interface ThrottlerStorageRecord {
  /** Hits counted in the window (the limit plus one on a denial: a denied hit is not counted). */
  totalHits: number;
  /** Seconds until the window ends. */
  timeToExpire: number;
  /** Whether the hit is denied. */
  isBlocked: boolean;
  /** Seconds until a denied client may retry (0 when allowed). */
  timeToBlockExpire: number;
}

/** Options of {@link RedisPatternsThrottlerStorage}. */
export interface RedisPatternsThrottlerStorageOptions {
  /**
   * How a named throttler's `limit` per `ttl` is counted (default `fixed-window`, as `@nest-lab/throttler-storage-redis`
   * counts it; `sliding-log` counts exactly over any `ttl`, like the throttler's in-memory storage).
   */
  algorithm?: 'fixed-window' | 'sliding-log' | 'sliding-window-counter';
}

const NO_OUTAGE_OVERRIDE = Object.freeze({});
const ALGORITHMS: ReadonlyArray<NonNullable<RedisPatternsThrottlerStorageOptions['algorithm']>> = [
  'fixed-window',
  'sliding-log',
  'sliding-window-counter',
];
const argumentError: PolicyErrorFactory = (field, expected, received) =>
  new InvalidArgumentError(field, `expected ${expected}, received ${received}`);

/**
 * A `ThrottlerStorage` for `@nestjs/throttler` backed by this module's rate limiter: pass it as the throttler
 * module's `storage` and `ThrottlerGuard`, `@Throttle()` and `@SkipThrottle()` keep working, with this module's
 * scripts and connections — one round trip per named throttler (concurrent ones share an `EVALSHA`), time from
 * Redis, keys in one cluster slot per throttler key, every key with a TTL, a command timeout and the module's outage
 * policy (`rateLimit.failOpen`: allowed when Redis cannot answer; fail closed: 503). A refusal by Redis (an ACL
 * without scripting, a key of another type) rejects `increment` with `RedisRefusedError` (503), never a pass.
 * `blockDuration` is the policy's `blockDurationMs`, set in the same script as the denial; as with the throttler's own
 * storage, a block ends when `blockDuration` ends, with the count forgotten, even before the window ends. Keys:
 * `rl:{throttler:<name>:<key>}:…`, each part escaped on its own.
 *
 * @example
 * ThrottlerModule.forRootAsync({
 *   inject: [RateLimiterService],
 *   useFactory: (limiter: RateLimiterService) => ({
 *     throttlers: [{ ttl: 60_000, limit: 100 }],
 *     storage: new RedisPatternsThrottlerStorage(limiter),
 *   }),
 * })
 */
export class RedisPatternsThrottlerStorage {
  private readonly algorithm: WindowPolicy['algorithm'];
  private readonly runtime: RateLimitRuntime;

  constructor(
    private readonly limiter: RateLimiterService,
    options: RedisPatternsThrottlerStorageOptions = {},
  ) {
    const algorithm = options.algorithm ?? 'fixed-window';
    if (!ALGORITHMS.includes(algorithm)) {
      throw new InvalidArgumentError(
        'options.algorithm',
        `expected ${expectedAlgorithm(algorithm, ALGORITHMS)}, received ${describeValue(algorithm)}`,
      );
    }
    this.algorithm = algorithm;
    const runtime = RateLimitRuntime.of(limiter);
    if (!runtime) throw new InvalidArgumentError('limiter', "expected the module's RateLimiterService (inject it)");
    this.runtime = runtime;
  }

  /**
   * Counts one hit of `key` for the named throttler: `limit` per `ttl` ms, blocked for `blockDuration` ms after a
   * denial (the throttler passes its `ttl` when no block duration is configured), then counted afresh. A denied hit
   * is not counted. Without a block duration, a denied client waits for the window.
   */
  async increment(key: string, ttl: number, limit: number, blockDuration: number, throttlerName: string): Promise<ThrottlerStorageRecord> {
    const blockMs = blockDuration > 0 ? Math.ceil(blockDuration) : 0;
    // A policy object per call: compiled once per distinct (limit, ttl, block) and cached (compile-policies.ts).
    const policy: WindowPolicy = { algorithm: this.algorithm, limit, windowMs: Math.ceil(ttl), blockDurationMs: blockMs || undefined };
    const compiled = compilePolicies(policy, 'throttler', argumentError);
    const name = `throttler:${throttlerName}`;
    // Separate key parts: no throttler name and key can be spelled as another pair's.
    const identity = ['throttler', throttlerName, key];
    const decision = await this.runtime.decide(identity, compiled, 1, NO_OUTAGE_OVERRIDE, name);
    const timeToExpire = Math.ceil(decision.resetMs / 1000);
    if (decision.allowed) return { totalHits: limit - decision.remaining, timeToExpire, isBlocked: false, timeToBlockExpire: 0 };
    if (blockMs > 0 && decision.retryAfterMs >= blockMs) await this.forgetCount(identity, policy, limit);
    // With a block, the wait is the block's: the count it would otherwise wait for is forgotten.
    const waitMs = blockMs > 0 ? Math.min(decision.retryAfterMs, blockMs) : decision.retryAfterMs;
    return { totalHits: limit + 1, timeToExpire, isBlocked: true, timeToBlockExpire: Math.max(Math.ceil(waitMs / 1000), 1) };
  }

  /**
   * Empties the window's count under the block that a denial just started (the block itself stays), so that the
   * client is counted afresh when the block ends, as the throttler's own storage does. The library's
   * `blockDurationMs` instead keeps the window's count, hence this second round trip, on the denial that starts a
   * block only: there the wait is the later of the window's and the block's (`retryAfterMs >= blockMs`); once the
   * count is empty, denials during the block wait for the block alone (`< blockMs`). Blocked calls are not counted,
   * so emptying the count at the block's start equals forgetting it at its end (with `sliding-window-counter`, the
   * previous window's weight still counts). Best effort: if it fails (an outage), the client stays denied until the
   * window ends too, never admitted early.
   */
  private async forgetCount(identity: readonly string[], policy: WindowPolicy, limit: number): Promise<void> {
    try {
      await this.limiter.refund(identity, policy, limit);
    } catch {
      // The denial stands either way; the outage itself is reported by the limiter's own decisions.
    }
  }
}
