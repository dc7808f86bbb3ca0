import { describeValue, isPlainObject } from '../core/options/option-checks';
import { RATE_LIMIT_ALGORITHMS, type RateLimitAlgorithm } from './rate-limit-policy';
import { type ScriptCall, scriptCallFor } from './script-call';

/** Raises the error of the caller's edge: `InvalidArgumentError` for a call, `InvalidOptionsError` for a decorator. */
export type PolicyErrorFactory = (field: string, expected: string, received: string) => Error;

/** Algorithm codes shared with the Lua script (ARGV) and the in-memory fallback. */
export const ALGORITHM_CODES: Readonly<Record<RateLimitAlgorithm, number>> = {
  'fixed-window': 1,
  'sliding-log': 2,
  'sliding-window-counter': 3,
  'token-bucket': 4,
  gcra: 5,
};

/**
 * Algorithm names 1.0 renamed, with what a policy naming one is told: it fails validation like any unknown algorithm
 * (at startup for a decorator), the message naming the new name.
 */
const RENAMED_ALGORITHMS: ReadonlyMap<unknown, string> = new Map([
  ['sliding-window', "'sliding-log' ('sliding-window' was renamed 'sliding-log' in 1.0; 'sliding-window-counter' keeps its name)"],
]);

/** What an `algorithm` field expects, for its error: the new name of a renamed algorithm, else one of `algorithms`. */
export function expectedAlgorithm(received: unknown, algorithms: readonly string[]): string {
  return RENAMED_ALGORITHMS.get(received) ?? `one of ${algorithms.map((a) => `'${a}'`).join(', ')}`;
}

/** One validated policy in the form the script and the headers need, computed once. */
export interface CompiledPolicy {
  readonly algorithm: RateLimitAlgorithm;
  readonly code: number;
  /** First and second numeric parameter as sent to the script (see scripts/consume.script.ts). */
  readonly a: number;
  readonly b: number;
  /** The limit a decision reports (limit, capacity or burst). */
  readonly limit: number;
  /** `blockDurationMs`, or 0 for none. */
  readonly blockMs: number;
  /** Key suffix inside the identity's slot group: algorithm and parameters, so a changed policy starts afresh. */
  readonly suffix: string;
  /** Name in the headers (`default`, or `p<index>` with several policies) and `RateLimit-Policy` item. */
  readonly name: string;
  readonly policyItem: string;
}

/** A validated list of policies, ready for one script call: everything per call is precomputed here. */
export interface CompiledPolicies {
  readonly policies: readonly CompiledPolicy[];
  /** `[code, a, b]` per policy, flattened: the tail of the script's ARGV. */
  readonly args: ReadonlyArray<number>;
  /**
   * `:<suffix>` per policy, appended to the identity's slot group to form KEYS; then `:<suffix>:blk` per policy with
   * a block duration, in order (the key whose TTL is the block).
   */
  readonly keySuffixes: readonly string[];
  /** The script and its precomputed ARGV (a specialised script for one policy, the generic one for several). */
  readonly call: ScriptCall;
  /** Whether every policy accepts a fractional cost (token bucket, GCRA). */
  readonly fractionalCost: boolean;
  /** The value of the `RateLimit-Policy` header. */
  readonly policyHeader: string;
}

const MAX_LIMIT = 1_000_000_000;
const MAX_LOG_LIMIT = 100_000;
const MAX_WINDOW_MS = 366 * 24 * 3600 * 1000;
const cache = new WeakMap<object, CompiledPolicies>();
// Policies built afresh per call (a policy per plan or tenant, from a function) are cached by their parameters:
// validating and compiling them again would cost more than the decision's own client work.
const byShape = new Map<string, CompiledPolicies>();
const MAX_SHAPES = 1000;
const SHAPE_FIELDS = ['limit', 'windowMs', 'capacity', 'refillPerSecond', 'periodMs', 'burst', 'blockDurationMs'] as const;

/**
 * Validates `policy | policy[]` and compiles it. Results are cached per object, so a constant policy (the usual
 * case, and every decorator) is validated once, and per distinct parameters (at most 1000 shapes), so a policy
 * object built per call compiles once too. Every error names the field, under `path` (e.g. `policy[1].limit`).
 */
export function compilePolicies(input: unknown, path: string, error: PolicyErrorFactory): CompiledPolicies {
  if (typeof input !== 'object' || input === null) return compileList(input, path, error);
  const cached = cache.get(input);
  if (cached) return cached;
  const shape = shapeOf(input);
  const known = shape === undefined ? undefined : byShape.get(shape);
  if (known) return known;
  const compiled = compileList(input, path, error);
  // A shape seen for the first time may be a constant policy: its object is remembered too, so the next calls find
  // it without building the shape. Objects made per call then hit the shape cache and are not remembered.
  cache.set(input, compiled);
  if (shape !== undefined) {
    if (byShape.size >= MAX_SHAPES) byShape.delete(byShape.keys().next().value!);
    byShape.set(shape, compiled);
  }
  return compiled;
}

/**
 * The parameters of valid-looking policies as one string, or undefined when a field is not a plain number (such
 * input is compiled, and rejected, every time rather than share an entry with a valid policy that prints alike).
 */
function shapeOf(input: object): string | undefined {
  const list: unknown[] = Array.isArray(input) ? input : [input];
  if (list.length === 0 || list.length > 16) return undefined;
  let shape = Array.isArray(input) ? '[' : '';
  for (const policy of list) {
    if (!isPlainObject(policy) || typeof policy.algorithm !== 'string') return undefined;
    shape += policy.algorithm;
    for (const field of SHAPE_FIELDS) {
      const value = policy[field];
      if (value === undefined) shape += ':';
      else if (typeof value === 'number') shape += `:${value}`;
      else return undefined;
    }
    shape += ';';
  }
  return shape;
}

function compileList(input: unknown, path: string, error: PolicyErrorFactory): CompiledPolicies {
  const list = Array.isArray(input) ? input : [input];
  if (list.length === 0) throw error(path, 'a policy or a non-empty array of policies', 'an empty array');
  if (list.length > 16) throw error(path, 'at most 16 policies', `an array of ${list.length}`);
  const policies = list.map((policy, i) =>
    compileOne(policy, Array.isArray(input) ? `${path}[${i}]` : path, error, list.length === 1 ? 'default' : `p${i}`),
  );
  const seen = new Map<string, number>();
  policies.forEach((policy, i) => {
    const first = seen.get(policy.suffix);
    if (first !== undefined) throw error(`${path}[${i}]`, `a policy different from ${path}[${first}]`, 'a duplicate');
    seen.set(policy.suffix, i);
  });
  const compiled: CompiledPolicies = {
    policies,
    args: policies.flatMap((p) => [p.code, p.a, p.b]),
    keySuffixes: [...policies.map((p) => `:${p.suffix}`), ...policies.filter((p) => p.blockMs > 0).map((p) => `:${p.suffix}:blk`)],
    call: scriptCallFor(policies),
    fractionalCost: policies.every((p) => p.algorithm === 'token-bucket' || p.algorithm === 'gcra'),
    policyHeader: policies.map((p) => p.policyItem).join(', '),
  };
  return compiled;
}

/** Checks a call's cost against the compiled policies; returns the cost to send. */
export function checkCost(cost: unknown, compiled: CompiledPolicies, error: PolicyErrorFactory): number {
  if (cost === undefined) return 1;
  if (typeof cost !== 'number' || !Number.isFinite(cost) || cost < 0 || cost > MAX_LIMIT) {
    throw error('cost', 'a finite number of at least 0', describeValue(cost));
  }
  if (!compiled.fractionalCost && !Number.isInteger(cost)) {
    throw error('cost', 'an integer (window algorithms count whole units)', describeValue(cost));
  }
  return cost;
}

function compileOne(policy: unknown, path: string, error: PolicyErrorFactory, defaultName: string): CompiledPolicy {
  if (!isPlainObject(policy)) throw error(path, 'a policy object', describeValue(policy));
  const algorithm = policy.algorithm as RateLimitAlgorithm;
  if (!RATE_LIMIT_ALGORITHMS.includes(algorithm)) {
    throw error(`${path}.algorithm`, expectedAlgorithm(policy.algorithm, RATE_LIMIT_ALGORITHMS), describeValue(policy.algorithm));
  }
  const name = defaultName;
  const int = (field: string, max: number): number => {
    const value = policy[field];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) {
      throw error(`${path}.${field}`, `an integer from 1 to ${max}`, describeValue(value));
    }
    return value;
  };
  const code = ALGORITHM_CODES[algorithm];
  const blockMs = policy.blockDurationMs === undefined ? 0 : int('blockDurationMs', MAX_WINDOW_MS);
  const item = (q: number, windowMs: number) => `"${name}";q=${q};w=${Math.max(1, Math.ceil(windowMs / 1000))}`;
  switch (algorithm) {
    case 'token-bucket': {
      const capacity = int('capacity', MAX_LIMIT);
      const rate = policy.refillPerSecond;
      if (typeof rate !== 'number' || !Number.isFinite(rate) || rate <= 0 || rate > MAX_LIMIT || capacity / rate > MAX_WINDOW_MS / 1000) {
        throw error(
          `${path}.refillPerSecond`,
          'a number greater than 0 (tokens per second; capacity/refillPerSecond at most a year)',
          describeValue(rate),
        );
      }
      // tb2: the state became one string (it was a hash), so a key an earlier version left is never misread.
      return {
        algorithm,
        code,
        a: capacity,
        b: rate,
        limit: capacity,
        blockMs,
        suffix: `tb2:${capacity}:${rate}`,
        name,
        policyItem: item(capacity, (capacity / rate) * 1000),
      };
    }
    case 'gcra': {
      const limit = int('limit', MAX_LIMIT);
      const periodMs = int('periodMs', MAX_WINDOW_MS);
      const burst = policy.burst === undefined ? limit : int('burst', MAX_LIMIT);
      // Decided in its token-bucket form (the same decisions: a bucket of `burst` refilled at limit per period).
      // Stored as a theoretical arrival time, the state drifted: a TAT near 1.8e12 ms has a float step of 0.24 µs,
      // added up once per unit, so 6561 per day allowed 6560 at once and 10000 per second 9990. Stored as tokens,
      // a burst is counted exactly. gcra2: the state changed form.
      const refillPerSecond = (limit * 1000) / periodMs;
      return {
        algorithm,
        code,
        a: burst,
        b: refillPerSecond,
        limit: burst,
        blockMs,
        suffix: `gcra2:${limit}:${periodMs}:${burst}`,
        name,
        policyItem: item(limit, periodMs),
      };
    }
    default: {
      // A sliding log holds one sorted-set member per unit: bound it so one identity cannot take megabytes.
      const limit = int('limit', algorithm === 'sliding-log' ? MAX_LOG_LIMIT : MAX_LIMIT);
      const windowMs = int('windowMs', MAX_WINDOW_MS);
      // swc2: as tb2 above. `sw`: the sliding log's tag from before its rename (same state, so existing keys still count).
      const tag = algorithm === 'fixed-window' ? 'fw' : algorithm === 'sliding-log' ? 'sw' : 'swc2';
      return {
        algorithm,
        code,
        a: limit,
        b: windowMs,
        limit,
        blockMs,
        suffix: `${tag}:${limit}:${windowMs}`,
        name,
        policyItem: item(limit, windowMs),
      };
    }
  }
}
