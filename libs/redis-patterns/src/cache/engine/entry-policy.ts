import { InvalidArgumentError } from '../../errors/invalid-argument.error';
import { MAX_TTL_SECONDS } from '../ttl-units';
import { type CacheCodec, codecProblem } from '../serialization/cache-codec';

/** How one write is stored and refreshed; built once per call (service) or once per method (decorators). */
export interface EntryPolicy {
  /** Fresh TTL before jitter, ms. */
  readonly ttlMs: number;
  /** Fraction of the TTL that jitter may cut off (0 = none). */
  readonly jitter: number;
  /** Stale-while-revalidate window after the fresh TTL, ms (0 = none). */
  readonly staleMs: number;
  /** XFetch β for probabilistic early refresh (0 = off). */
  readonly beta: number;
  /** Grace window after the stale window, ms: the value kept to answer when a load fails (0 = none). */
  readonly graceMs: number;
  /** With a stale or grace value at hand, answer with it when the loader has run this long, ms (0 = off). */
  readonly softTimeoutMs: number;
  /** Stop waiting for the loader after this long, ms (0 = off). */
  readonly hardTimeoutMs: number;
  readonly tags: readonly string[];
  /** Read through the in-process near cache (L1) when it is configured. */
  readonly near?: boolean;
  /** The fresh TTL in seconds computed from the value being written (replaces `ttlMs` for that write). */
  readonly ttlOf?: (value: unknown) => unknown;
  /** The codec of this entry (default: the module's `cache.codec`). */
  readonly codec?: CacheCodec;
}

/** Per-call options shared by `set`, `wrap` and the decorators. TTLs in seconds. */
export interface EntryOptions {
  /**
   * Fresh TTL in seconds (default `cache.defaultTtl`), or a function of the value being stored returning it (e.g.
   * shorter for empty results). Jitter may shorten it, never lengthen it. A function returning anything but a number
   * of seconds > 0 skips that write with a warning (`set` rejects instead).
   */
  ttl?: number | ((value: any) => number);
  /** Fresh TTL in ms (a whole number): the unambiguous spelling of a constant `ttl` (give one or the other). */
  ttlMs?: number;
  /** Tags to invalidate this entry by (`invalidateTags`). */
  tags?: readonly string[];
  /** How this entry's value is encoded (default: the module's `cache.codec`); see {@link CacheCodec}. */
  codec?: CacheCodec;
  /**
   * Grace window in ms (default `cache.graceMs`, 0 = off): the entry is kept this long past its fresh TTL and stale
   * window, and when the loader throws, its last value is answered (status `'stale'`) instead of the error; the key's
   * loader is then tried again after `cache.graceRetryMs`, not on every call.
   */
  graceMs?: number;
}

/** Options of `wrap` (and `@Cacheable`): cache-aside with stampede control. */
export interface WrapOptions extends EntryOptions {
  /**
   * Stale-while-revalidate window in seconds: for this long after the fresh TTL the old value is served at once
   * while one background refresh runs. Default 0 (off).
   */
  staleTtl?: number;
  /** Stale-while-revalidate window in ms: the unambiguous spelling of `staleTtl` (give one or the other). */
  staleTtlMs?: number;
  /**
   * Probabilistic early refresh (XFetch): a read close to expiry refreshes in the background with a probability
   * growing as expiry nears and with the loader's duration. `true` = β 1; a number sets β (higher = earlier).
   */
  earlyRefresh?: boolean | number;
  /** Read through the near cache (L1) for this call: default `cache.nearCache.enabled`. */
  nearCache?: boolean;
  /**
   * Soft timeout in ms (default `cache.softTimeoutMs`, 0 = off): with a stale or grace value at hand, answer with it
   * once the loader has run this long; the load goes on in the background and refreshes the entry.
   */
  softTimeoutMs?: number;
  /**
   * Hard timeout in ms (default `cache.hardTimeoutMs`, 0 = off): stop waiting for the loader after this long and
   * answer with the grace value, or reject with `CacheLoadTimeoutError`. The load goes on, and may still fill the
   * entry for later calls.
   */
  hardTimeoutMs?: number;
  /**
   * Skip the read and run the loader (a refresh): the result replaces the entry. Concurrent calls of the key still
   * share one load, in this process and across instances (a call that finds another instance loading the key takes
   * that load's result).
   */
  forceFresh?: boolean;
}

/** The module's defaults of a call's policy (`cache` section). */
export interface PolicyDefaults {
  readonly ttlMs: number;
  readonly jitter: number;
  readonly near?: boolean;
  readonly graceMs?: number;
  readonly softTimeoutMs?: number;
  readonly hardTimeoutMs?: number;
}

/** Validates per-call options (throws InvalidArgumentError naming the field) and builds the policy. */
export function buildPolicy(options: WrapOptions | undefined, defaults: PolicyDefaults, argument = 'options'): EntryPolicy {
  const { graceMs = 0, softTimeoutMs = 0, hardTimeoutMs = 0 } = defaults;
  if (options === undefined)
    return {
      ttlMs: defaults.ttlMs,
      jitter: defaults.jitter,
      staleMs: 0,
      beta: 0,
      tags: [],
      near: defaults.near,
      graceMs,
      softTimeoutMs,
      hardTimeoutMs,
    };
  if (typeof options !== 'object' || options === null) throw new InvalidArgumentError(argument, 'expected an object');
  const ttlOf = typeof options.ttl === 'function' ? (options.ttl as (value: unknown) => unknown) : undefined;
  const ttlMs = options.ttl === undefined || ttlOf ? defaults.ttlMs : seconds(options.ttl, `${argument}.ttl`, false);
  const staleMs = options.staleTtl === undefined ? 0 : seconds(options.staleTtl, `${argument}.staleTtl`, true);
  let beta = 0;
  if (options.earlyRefresh === true) beta = 1;
  else if (typeof options.earlyRefresh === 'number' && options.earlyRefresh > 0 && options.earlyRefresh <= 100) beta = options.earlyRefresh;
  else if (options.earlyRefresh !== undefined && options.earlyRefresh !== false) {
    throw new InvalidArgumentError(`${argument}.earlyRefresh`, 'expected true, false or a β between 0 and 100');
  }
  if (options.nearCache !== undefined && typeof options.nearCache !== 'boolean')
    throw new InvalidArgumentError(`${argument}.nearCache`, 'expected true or false');
  const near = options.nearCache ?? defaults.near;
  const loader = loaderWindows(options, { graceMs, softTimeoutMs, hardTimeoutMs }, argument);
  let policy: EntryPolicy = {
    ttlMs,
    jitter: defaults.jitter,
    staleMs,
    beta,
    tags: checkTags(options.tags, `${argument}.tags`),
    near,
    ...loader,
  };
  if (ttlOf) policy = { ...policy, ttlOf };
  if (options.codec !== undefined) {
    const problem = codecProblem(options.codec);
    if (problem) throw new InvalidArgumentError(`${argument}.codec`, `expected ${problem}`);
    policy = { ...policy, codec: options.codec };
  }
  return policy;
}

/** Longest grace window, ms: as long as the longest TTL. */
const MAX_GRACE_MS = MAX_TTL_SECONDS * 1000;
/** Longest loader timeout, ms: a loader longer than ten minutes is not one a caller waits for. */
const MAX_LOADER_TIMEOUT_MS = 600_000;

// The grace window and the loader's timeouts of a call: its own, else the module's; a soft timeout must come before
// the hard one (it would never fire).
function loaderWindows(
  options: WrapOptions,
  defaults: Pick<EntryPolicy, 'graceMs' | 'softTimeoutMs' | 'hardTimeoutMs'>,
  argument: string,
): Pick<EntryPolicy, 'graceMs' | 'softTimeoutMs' | 'hardTimeoutMs'> {
  const ms = (field: 'graceMs' | 'softTimeoutMs' | 'hardTimeoutMs', max: number): number => {
    const value = options[field];
    if (value === undefined) return defaults[field];
    if (!Number.isInteger(value) || value < 0 || value > max)
      throw new InvalidArgumentError(`${argument}.${field}`, `expected a whole number of ms from 0 (off) to ${max}`);
    return value;
  };
  const windows = {
    graceMs: ms('graceMs', MAX_GRACE_MS),
    softTimeoutMs: ms('softTimeoutMs', MAX_LOADER_TIMEOUT_MS),
    hardTimeoutMs: ms('hardTimeoutMs', MAX_LOADER_TIMEOUT_MS),
  };
  if (windows.softTimeoutMs > 0 && windows.hardTimeoutMs > 0 && windows.softTimeoutMs >= windows.hardTimeoutMs)
    throw new InvalidArgumentError(`${argument}.softTimeoutMs`, `expected a timeout below hardTimeoutMs (${windows.hardTimeoutMs})`);
  if (options.forceFresh !== undefined && typeof options.forceFresh !== 'boolean')
    throw new InvalidArgumentError(`${argument}.forceFresh`, 'expected true or false');
  return windows;
}

/** The fresh TTL of one write, ms: the policy's, or what its TTL function answers for `value` (validated). */
export function freshTtlMs(policy: EntryPolicy, value: unknown): number {
  return policy.ttlOf ? seconds(policy.ttlOf(value), 'ttl(value)', false) : policy.ttlMs;
}

/** Checks a list of tags: non-empty strings. */
export function checkTags(tags: unknown, argument: string): readonly string[] {
  if (tags === undefined) return [];
  if (!Array.isArray(tags)) throw new InvalidArgumentError(argument, 'expected an array of non-empty strings');
  for (const tag of tags) {
    if (typeof tag !== 'string' || tag.length === 0) throw new InvalidArgumentError(argument, 'expected an array of non-empty strings');
  }
  return tags.length > 1 ? [...new Set(tags as string[])] : (tags as string[]);
}

/** Checks a cache key given by the caller. */
export function checkKey(key: unknown, argument = 'key'): string {
  if (typeof key === 'number' && Number.isFinite(key)) return String(key);
  if (typeof key !== 'string' || key.length === 0) throw new InvalidArgumentError(argument, 'expected a non-empty string');
  return key;
}

function seconds(value: unknown, argument: string, zeroAllowed: boolean): number {
  const ok = typeof value === 'number' && Number.isFinite(value) && (zeroAllowed ? value >= 0 : value > 0) && value <= MAX_TTL_SECONDS;
  if (!ok)
    throw new InvalidArgumentError(argument, `expected a number of seconds ${zeroAllowed ? '>= 0' : '> 0'} and <= ${MAX_TTL_SECONDS}`);
  return Math.max(1, Math.round((value as number) * 1000)) * (value === 0 ? 0 : 1);
}

/** The TTL actually written: jitter cuts up to `jitter` of the fresh TTL, never adds (a TTL is an upper bound). */
export function jitteredTtlMs(ttlMs: number, jitter: number): number {
  if (jitter === 0) return ttlMs;
  return Math.max(1, ttlMs - Math.floor(Math.random() * jitter * ttlMs));
}
