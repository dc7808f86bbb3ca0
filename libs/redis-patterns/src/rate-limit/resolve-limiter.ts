import { describeValue, isPlainObject } from '../core/options/option-checks';
import { InvalidOptionsError } from '../errors/invalid-options.error';
import { checkCost, compilePolicies, type CompiledPolicies, type PolicyErrorFactory } from './compile-policies';
import type { RateLimitOutageOptions, RateLimitPolicy } from './rate-limit-policy';

/** Options of `@RateLimit` besides its policies. */
export interface RateLimitDecoratorOptions extends RateLimitOutageOptions {
  /**
   * What one budget is counted per. On a provider method (or any method called directly): a string, or a function
   * of the method's arguments (default: one budget for the method). On a handler Nest calls: a string, or a function
   * of `(request, context)` — `request` is the HTTP request (HTTP, and GraphQL's HTTP request), the payload (RPC)
   * or the client socket (WebSocket) — (default: the client address on HTTP and GraphQL, the connection on
   * WebSocket, the handler on RPC; see `rateLimit.getTracker`).
   */
  readonly key?: string | ((...args: any[]) => string | number | Promise<string | number>);
  /** The limiter's name, part of its keys (default `Class.method`); limiters with one name share budgets. */
  readonly name?: string;
  /** Units per call (default 1). */
  readonly cost?: number;
}

/** What `@RateLimit` records: the policies as given and the options. Validated at bootstrap, not at decoration. */
export interface RateLimitMetadata {
  readonly policies: unknown;
  readonly options: RateLimitDecoratorOptions;
}

/** A validated limiter, compiled once per decorator. */
export interface ResolvedLimiter {
  readonly name: string;
  readonly compiled: CompiledPolicies;
  readonly cost: number;
  readonly outage: RateLimitOutageOptions;
  readonly key?: RateLimitDecoratorOptions['key'];
}

const OPTION_KEYS = ['key', 'name', 'cost', 'failOpen', 'inMemoryFallback'] as const;
const resolved = new WeakMap<RateLimitMetadata, Map<string, ResolvedLimiter>>();

/** Splits `@RateLimit`'s arguments: a policy (with options mixed in), `{ policies, …options }`, or policies + options. */
export function toMetadata(
  policy:
    | RateLimitPolicy
    | readonly RateLimitPolicy[]
    | (RateLimitPolicy & RateLimitDecoratorOptions)
    | ({ policies: RateLimitPolicy | readonly RateLimitPolicy[] } & RateLimitDecoratorOptions),
  options: RateLimitDecoratorOptions = {},
): RateLimitMetadata {
  if (!isPlainObject(policy)) return { policies: policy, options };
  const rest: Record<string, unknown> = { ...policy };
  const own: Record<string, unknown> = {};
  for (const key of OPTION_KEYS) {
    if (key in rest) {
      own[key] = rest[key];
      delete rest[key];
    }
  }
  const policies = 'policies' in rest ? rest.policies : rest;
  return { policies, options: { ...own, ...options } };
}

/**
 * Validates and compiles a decorator's metadata (cached per metadata and name). Errors are `InvalidOptionsError`s
 * naming the field under `@RateLimit(<where>)`, thrown at bootstrap so a bad policy fails startup.
 */
export function resolveLimiter(metadata: RateLimitMetadata, defaultName: string, where: string): ResolvedLimiter {
  let byName = resolved.get(metadata);
  const hit = byName?.get(defaultName);
  if (hit) return hit;
  const path = `@RateLimit(${where})`;
  const error: PolicyErrorFactory = (field, expected, received) => new InvalidOptionsError(`${path}.${field}`, expected, received);
  const { options } = metadata;
  const compiled = compilePolicies(metadata.policies, 'policy', error);
  const cost = checkCost(options.cost, compiled, error);
  if (options.name !== undefined && (typeof options.name !== 'string' || !/^[A-Za-z0-9_.:-]{1,100}$/.test(options.name))) {
    throw error('name', 'a name of 1 to 100 letters, digits, "_", "-", ".", ":"', describeValue(options.name));
  }
  if (options.key !== undefined && typeof options.key !== 'string' && typeof options.key !== 'function') {
    throw error('key', 'a string or a function', describeValue(options.key));
  }
  for (const flag of ['failOpen', 'inMemoryFallback'] as const) {
    if (options[flag] !== undefined && typeof options[flag] !== 'boolean') throw error(flag, 'true or false', describeValue(options[flag]));
  }
  const limiter: ResolvedLimiter = {
    name: options.name ?? defaultName,
    compiled,
    cost,
    outage: { failOpen: options.failOpen, inMemoryFallback: options.inMemoryFallback },
    key: options.key,
  };
  if (!byName) resolved.set(metadata, (byName = new Map()));
  byName.set(defaultName, limiter);
  return limiter;
}
