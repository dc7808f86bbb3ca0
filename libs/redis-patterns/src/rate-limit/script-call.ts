import type { RedisScript } from '../core/scripts/redis-script';
import type { RateLimitAlgorithm } from './rate-limit-policy';
import { ADJUST_SCRIPT } from './scripts/adjust.script';
import { CONSUME_SCRIPT } from './scripts/consume.script';
import { multiFixedWindowScript } from './scripts/multi-fixed-window.script';
import {
  singleFixedWindowScript,
  singleSlidingLogScript,
  singleSlidingWindowCounterScript,
  singleTokenBucketScript,
} from './scripts/single-policy.script';

/** What a policy contributes to a script call. */
interface CallPolicy {
  readonly algorithm: RateLimitAlgorithm;
  readonly code: number;
  readonly a: number;
  readonly b: number;
  readonly blockMs: number;
}

/**
 * How one limiter calls Redis, computed once per compiled limiter: which script, and its ARGV as strings (ioredis
 * would otherwise convert every number on every call).
 */
export interface ScriptCall {
  readonly script: RedisScript<number[]>;
  /** ARGV for a cost of 1; index 0 is the cost. */
  readonly unitArgs: readonly string[];
  /** Index of the per-call nonce in ARGV, or -1 when no policy keeps a log (only a sliding log needs one). */
  readonly nonceIndex: number;
}

// One policy, the common case: a script per algorithm, written from its function (scripts/single-policy.script.ts).
const SINGLE: Readonly<Record<RateLimitAlgorithm, RedisScript<number[]>>> = {
  'fixed-window': singleFixedWindowScript,
  'sliding-log': singleSlidingLogScript,
  'sliding-window-counter': singleSlidingWindowCounterScript,
  'token-bucket': singleTokenBucketScript,
  // GCRA is decided in its token-bucket form (see compile-policies.ts).
  gcra: singleTokenBucketScript,
};

/** Every script a decision may run. */
export const RATE_LIMIT_SCRIPTS: ReadonlyArray<RedisScript<number[]>> = [
  ...new Set(Object.values(SINGLE)),
  multiFixedWindowScript,
  CONSUME_SCRIPT,
  ADJUST_SCRIPT,
];

/** The script call of a list of validated policies. */
export function scriptCallFor(policies: readonly CallPolicy[]): ScriptCall {
  const blocking = policies.some((p) => p.blockMs > 0);
  if (policies.length === 1 && !blocking) {
    const [{ algorithm, a, b }] = policies;
    const log = algorithm === 'sliding-log';
    // Single-policy ARGV: cost, a, b (, nonce).
    return {
      script: SINGLE[algorithm],
      unitArgs: log ? ['1', String(a), String(b), ''] : ['1', String(a), String(b)],
      nonceIndex: log ? 3 : -1,
    };
  }
  const log = policies.some((p) => p.algorithm === 'sliding-log');
  // Only fixed windows (per second + per day, the common pair): their own script, no clock, no closures.
  if (!blocking && policies.every((p) => p.algorithm === 'fixed-window')) {
    const tail = policies.flatMap((p) => [String(p.code), String(p.a), String(p.b)]);
    return { script: multiFixedWindowScript, unitArgs: ['1', '', ...tail], nonceIndex: -1 };
  }
  // Several policies, or any policy with a block duration: the generic script, all-or-nothing.
  // ARGV: cost, nonce, then code, a, b, blockMs per policy.
  const tail = policies.flatMap((p) => [String(p.code), String(p.a), String(p.b), String(p.blockMs)]);
  return { script: CONSUME_SCRIPT, unitArgs: ['1', '', ...tail], nonceIndex: log ? 1 : -1 };
}

/** The ARGV of one call: shared (no allocation) for the usual cost of 1 without a nonce. */
export function scriptArgs(call: ScriptCall, cost: number, nextNonce: () => string): readonly string[] {
  if (cost === 1 && call.nonceIndex < 0) return call.unitArgs;
  const args = call.unitArgs.slice();
  args[0] = String(cost);
  if (call.nonceIndex >= 0) args[call.nonceIndex] = nextNonce();
  return args;
}
