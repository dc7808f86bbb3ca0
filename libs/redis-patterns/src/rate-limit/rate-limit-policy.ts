/** What every policy may add to its algorithm's parameters. */
export interface PolicyBlocking {
  /**
   * Once this policy denies a call, the identity stays denied by it for this many ms (integer ≥ 1), whatever its
   * budget says meanwhile — a penalty for exceeding, as after failed logins. Set atomically in the same script as the
   * denial; calls during the block are denied with `retryAfterMs` up to its end and are not counted. Default: none.
   */
  readonly blockDurationMs?: number;
}

/** Window-based policies: at most `limit` units per `windowMs`. */
export interface WindowPolicy extends PolicyBlocking {
  /**
   * - `fixed-window`: one counter per window, the window starting at the first hit (cheapest, allows up to 2×limit
   *   across a window boundary);
   * - `sliding-log`: an exact log of hits (a sorted set, O(limit) memory);
   * - `sliding-window-counter`: two-window weighted estimate (O(1) memory, approximate).
   */
  readonly algorithm: 'fixed-window' | 'sliding-log' | 'sliding-window-counter';
  /** Units allowed per window (integer ≥ 1). */
  readonly limit: number;
  /** Window length in ms (integer ≥ 1). */
  readonly windowMs: number;
}

/** Token bucket: holds up to `capacity` tokens, refilled continuously at `refillPerSecond` (may be fractional). */
export interface TokenBucketPolicy extends PolicyBlocking {
  /** Selects this algorithm. */
  readonly algorithm: 'token-bucket';
  /** Tokens the bucket holds when full (integer ≥ 1): the largest burst. A new identity starts with a full bucket. */
  readonly capacity: number;
  /** Tokens added per second, continuously (> 0, may be fractional); refilling from empty may take at most 366 days. */
  readonly refillPerSecond: number;
}

/**
 * GCRA (generic cell rate algorithm): `limit` units per `periodMs`, evenly spaced, with up to `burst` units at once
 * (default `limit`). One key, one number (the theoretical arrival time) per identity.
 */
export interface GcraPolicy extends PolicyBlocking {
  /** Selects this algorithm. */
  readonly algorithm: 'gcra';
  /** Units per `periodMs` at the sustained rate (integer ≥ 1): one unit every `periodMs / limit` ms. */
  readonly limit: number;
  /** The period `limit` is spread over, in ms (integer ≥ 1). */
  readonly periodMs: number;
  /** Units allowed at once (integer ≥ 1, default `limit`); the limit decisions and headers report. */
  readonly burst?: number;
}

/** One rate-limit policy. Policies are validated and compiled on first use; do not mutate one afterwards. */
export type RateLimitPolicy = WindowPolicy | TokenBucketPolicy | GcraPolicy;

/** The name of a rate-limit algorithm, as a policy's `algorithm` gives it. */
export type RateLimitAlgorithm = 'fixed-window' | 'sliding-log' | 'sliding-window-counter' | 'token-bucket' | 'gcra';

/** The algorithms, as accepted in `policy.algorithm`. */
export const RATE_LIMIT_ALGORITHMS: readonly RateLimitAlgorithm[] = [
  'fixed-window',
  'sliding-log',
  'sliding-window-counter',
  'token-bucket',
  'gcra',
];

/** The state of one policy after a decision. */
export interface PolicyState {
  /** The policy's limit (`capacity` for a token bucket, `burst` for GCRA). */
  readonly limit: number;
  /** Units still available after this decision (never negative). */
  readonly remaining: number;
  /** Ms until the policy is back to its full limit. */
  readonly resetMs: number;
  /** Ms until this call (same cost) could be allowed; 0 when allowed. */
  readonly retryAfterMs: number;
}

/** The state of one policy after `RateLimiterService.refund` or `penalize`. */
export type RateLimitBalance = Omit<PolicyState, 'retryAfterMs'>;

/**
 * The result of `RateLimiterService.consume`. With several policies it reports the most restrictive one: the
 * denying policy (the longest wait) on a denial, the one with the fewest remaining units otherwise.
 */
export interface RateLimitDecision extends PolicyState {
  /**
   * True when the call may go ahead: every policy had room and each counted the cost (or Redis failed and the
   * limiter fails open). False when a policy denied it; a denied call consumes nothing from any policy.
   */
  readonly allowed: boolean;
  /** Index, in the policies of the call, of the policy reported above. */
  readonly policyIndex: number;
  /** Every policy of the call, in order. */
  readonly policies: readonly PolicyState[];
  /**
   * Where the decision came from: `redis`, or — when Redis failed — `fail-open` (allowed without counting) or
   * `memory` (the per-instance in-memory fallback); always `memory` in the module's memory mode.
   */
  readonly source: 'redis' | 'fail-open' | 'memory';
}

/** Options of one `consume` call (and of `@RateLimit`, which takes these too). */
export interface RateLimitConsumeOptions {
  /** Units this call consumes (default 1). Integer for window algorithms; may be fractional for token-bucket and GCRA. */
  readonly cost?: number;
  /**
   * Allow calls while Redis cannot answer (down, frozen past the command timeout, unreachable). Default: the
   * module's `rateLimit.failOpen`, itself default true.
   */
  readonly failOpen?: boolean;
  /**
   * Enforce the same policies per application instance in memory while Redis cannot answer (default: the module's
   * `rateLimit.inMemoryFallback`, itself default false). Takes precedence over `failOpen`.
   */
  readonly inMemoryFallback?: boolean;
}

/** What a limiter does when Redis cannot answer. */
export type RateLimitOutageOptions = Pick<RateLimitConsumeOptions, 'failOpen' | 'inMemoryFallback'>;
