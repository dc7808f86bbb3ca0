import type { ExecutionContext } from '@nestjs/common';
import { describeValue, isPlainObject } from '../core/options/option-checks';
import { InvalidOptionsError } from '../errors/invalid-options.error';
import { checkCost, compilePolicies, type CompiledPolicies, type PolicyErrorFactory } from './compile-policies';
import type { RateLimitConsumeOptions, RateLimitOutageOptions, RateLimitPolicy } from './rate-limit-policy';
import { isThenable } from '../core/promises/is-thenable';

/** Options of `@RateLimit` besides its policies. */
export interface RateLimitDecoratorOptions extends RateLimitConsumeOptions {
  /**
   * What one budget is counted per. On a provider method (or any method called directly): a string, or a function
   * of the method's arguments (default: one budget for the method). On a handler Nest calls: a string, or a function
   * of `(request, context)` — `request` is the HTTP request (HTTP, and GraphQL's HTTP request), the payload (RPC)
   * or the client socket (WebSocket) — (default: the client address on HTTP, GraphQL and WebSocket, the handler on
   * RPC; see `rateLimit.getTracker`). A function must name the caller on every call: `undefined`, `null`, `''` (or
   * anything but a non-empty string or a finite number) would count every such caller in one budget, so the call is
   * refused with `RateLimitIdentityError` (a 500 on HTTP). The budget is the two key parts `[name, key]`.
   */
  readonly key?: string | ((...args: any[]) => string | number | Promise<string | number>);
  /** The limiter's name, part of its keys (default `Class.method`); limiters with one name share budgets. */
  readonly name?: string;
  /**
   * Skips the limit for a call when it returns true (nothing is counted): a function of the method's arguments on a
   * provider method, of `(request, context)` on a handler Nest calls (as `key`). The module's `rateLimit.skipIf`
   * applies to handler calls as well.
   */
  readonly skipIf?: (...args: any[]) => boolean | Promise<boolean>;
}

/** The policies of a call, as `@RateLimit` may also take them: a function of the call (as `key`). */
export type RateLimitPolicyResolver = (
  ...args: any[]
) => RateLimitPolicy | readonly RateLimitPolicy[] | Promise<RateLimitPolicy | readonly RateLimitPolicy[]>;

/** What `@RateLimit` records: the policies as given and the options. Validated at bootstrap, not at decoration. */
export interface RateLimitMetadata {
  readonly policies: unknown;
  readonly options: RateLimitDecoratorOptions;
}

/** A validated limiter, resolved once per decorator. */
export interface ResolvedLimiter {
  readonly name: string;
  /** The compiled policies; undefined when a function gives them per call (see {@link policiesOf}). */
  readonly compiled?: CompiledPolicies;
  readonly resolvePolicies?: RateLimitPolicyResolver;
  readonly cost: number;
  readonly outage: RateLimitOutageOptions;
  readonly key?: RateLimitDecoratorOptions['key'];
  readonly skipIf?: RateLimitDecoratorOptions['skipIf'];
  /** Raises the decorator's `InvalidOptionsError` for a field of what a policy function returned. */
  readonly error: PolicyErrorFactory;
}

const OPTION_KEYS = ['key', 'name', 'cost', 'failOpen', 'inMemoryFallback', 'skipIf'] as const;
const resolved = new WeakMap<RateLimitMetadata, Map<string, ResolvedLimiter>>();

/** Splits `@RateLimit`'s arguments: a policy (with options mixed in), `{ policies, …options }`, or policies + options. */
export function toMetadata(
  policy:
    | RateLimitPolicy
    | readonly RateLimitPolicy[]
    | (RateLimitPolicy & RateLimitDecoratorOptions)
    | ({ policies: RateLimitPolicy | readonly RateLimitPolicy[] | RateLimitPolicyResolver } & RateLimitDecoratorOptions)
    | RateLimitPolicyResolver,
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
  const dynamic = typeof metadata.policies === 'function';
  const compiled = dynamic ? undefined : compilePolicies(metadata.policies, 'policy', error);
  // With policies given per call, a fractional cost is checked against each call's policies.
  const cost = compiled ? checkCost(options.cost, compiled, error) : checkCost(options.cost, FRACTIONAL, error);
  if (options.name !== undefined && (typeof options.name !== 'string' || !/^[A-Za-z0-9_.:-]{1,100}$/.test(options.name))) {
    throw error('name', 'a name of 1 to 100 letters, digits, "_", "-", ".", ":"', describeValue(options.name));
  }
  if (options.key !== undefined && !(typeof options.key === 'string' && options.key !== '') && typeof options.key !== 'function') {
    throw error('key', 'a non-empty string or a function', describeValue(options.key));
  }
  if (options.skipIf !== undefined && typeof options.skipIf !== 'function') {
    throw error('skipIf', 'a function returning true to skip the limit', describeValue(options.skipIf));
  }
  for (const flag of ['failOpen', 'inMemoryFallback'] as const) {
    if (options[flag] !== undefined && typeof options[flag] !== 'boolean') throw error(flag, 'true or false', describeValue(options[flag]));
  }
  const limiter: ResolvedLimiter = {
    name: options.name ?? defaultName,
    compiled,
    resolvePolicies: dynamic ? (metadata.policies as RateLimitPolicyResolver) : undefined,
    cost,
    outage: { failOpen: options.failOpen, inMemoryFallback: options.inMemoryFallback },
    key: options.key,
    skipIf: options.skipIf,
    error,
  };
  if (!byName) resolved.set(metadata, (byName = new Map()));
  byName.set(defaultName, limiter);
  return limiter;
}

/** Passes any finite cost ≥ 0 at bootstrap; the integer rule is checked per call against the call's policies. */
const FRACTIONAL = { fractionalCost: true } as CompiledPolicies;

/**
 * The compiled policies of one call: the decorator's own, or what its policy function returns for `args` (the
 * method's arguments, or `(request, context)` on a handler). Compilation is cached per object and per distinct
 * parameters (compile-policies.ts), so a policy per plan costs one lookup per call, and the decision stays one script
 * call. What the function returns is validated like a decorator's policies, the error naming the field.
 */
export function policiesOf(limiter: ResolvedLimiter, args: readonly unknown[]): CompiledPolicies | Promise<CompiledPolicies> {
  if (limiter.compiled) return limiter.compiled;
  const produced = limiter.resolvePolicies!(...args);
  return isThenable(produced)
    ? Promise.resolve(produced).then((policies) => compileCall(limiter, policies))
    : compileCall(limiter, produced);
}

function compileCall(limiter: ResolvedLimiter, policies: unknown): CompiledPolicies {
  const compiled = compilePolicies(policies, 'policy', limiter.error);
  if (!compiled.fractionalCost && !Number.isInteger(limiter.cost)) checkCost(limiter.cost, compiled, limiter.error);
  return compiled;
}

/**
 * Whether a handler call is exempt: the module's `rateLimit.skipIf(context)`, then the decorator's
 * `skipIf(request, context)`. Synchronous answers stay synchronous, so a limiter without either costs nothing.
 */
export function skipsHandlerCall(
  limiter: ResolvedLimiter,
  moduleSkipIf: ((context: ExecutionContext) => boolean | Promise<boolean>) | undefined,
  request: unknown,
  context: ExecutionContext,
): boolean | Promise<boolean> {
  const own = limiter.skipIf;
  if (!moduleSkipIf) return own ? own(request, context) : false;
  const global = moduleSkipIf(context);
  if (!own) return global;
  if (isThenable<boolean>(global)) return Promise.resolve(global).then((skip) => skip || own(request, context));
  return global || own(request, context);
}
