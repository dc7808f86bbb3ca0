import { InvalidArgumentError } from '../errors/invalid-argument.error';

/** Longest TTL accepted anywhere in the cache, in seconds (one year). */
export const MAX_TTL_SECONDS = 365 * 24 * 3600;

/** A TTL option in seconds whose value may have been written in milliseconds by habit. */
export type SecondsTtlField = 'ttl' | 'staleTtl' | 'defaultTtl';

/**
 * Whether a TTL given in seconds reads like milliseconds: a whole multiple of 1000, from 1000 up. Durations written
 * in ms are round thousands (1000, 5000, 60000, 300000, 3600000); durations written in seconds almost never are
 * (30, 300, 3600, 86400, 604800), so this rule flags the habit with few false positives.
 */
export function looksLikeMs(seconds: unknown): seconds is number {
  return typeof seconds === 'number' && Number.isInteger(seconds) && seconds >= 1000 && seconds % 1000 === 0;
}

/**
 * The warning for a seconds TTL that reads like ms (undefined when it does not): what the value means, the seconds
 * and ms spellings of what was probably meant, and the ms spelling that keeps the value as it is without a warning.
 * `path` names the option where it was given (`@Cacheable(UsersService.find).ttl`, `cache.defaultTtl`).
 */
export function ttlUnitWarning(path: string, field: SecondsTtlField, value: unknown): string | undefined {
  if (!looksLikeMs(value)) return undefined;
  const meant = value / 1000;
  return (
    `${path}: ${value} is seconds (${humanSeconds(value)}); for ${humanSeconds(meant)} write ${field}: ${meant} ` +
    `or ${field}Ms: ${value}. If ${humanSeconds(value)} is meant, write ${field}Ms: ${value * 1000} (ms spellings are not checked)`
  );
}

/** `60 s`, `16.7 min`, `16.7 h`, `3.5 d`: a duration as a reader estimates it. */
export function humanSeconds(seconds: number): string {
  const round = (n: number) => String(Math.round(n * 10) / 10);
  if (seconds <= 60) return `${round(seconds)} s`;
  if (seconds < 3600) return `${round(seconds / 60)} min`;
  if (seconds < 86_400) return `${round(seconds / 3600)} h`;
  return `${round(seconds / 86_400)} d`;
}

/** The ms spellings of the per-call TTL options (`set`, `wrap`, the decorators). */
export interface TtlMsOptions {
  ttl?: unknown;
  staleTtl?: unknown;
  ttlMs?: unknown;
  staleTtlMs?: unknown;
}

/**
 * Per-call options with `ttlMs` / `staleTtlMs` turned into their seconds spellings, so one validation serves both.
 * Options without an ms spelling are returned as they are (no allocation on the common path).
 * @throws InvalidArgumentError naming `<argument>.ttlMs` (or `staleTtlMs`) when it is not a whole number of ms in
 *   range, or when the seconds spelling of the same option is given too.
 */
export function secondsSpelling<T extends TtlMsOptions>(options: T | undefined, argument: string): T | undefined {
  if (typeof options !== 'object' || options === null || (options.ttlMs === undefined && options.staleTtlMs === undefined)) return options;
  const { ttlMs, staleTtlMs, ...rest } = options;
  const converted: TtlMsOptions = rest;
  if (ttlMs !== undefined) converted.ttl = fromMs(ttlMs, options.ttl, `${argument}.ttlMs`, 'ttl', false);
  if (staleTtlMs !== undefined) converted.staleTtl = fromMs(staleTtlMs, options.staleTtl, `${argument}.staleTtlMs`, 'staleTtl', true);
  return converted as T;
}

function fromMs(ms: unknown, seconds: unknown, argument: string, secondsField: string, zeroAllowed: boolean): number {
  if (seconds !== undefined)
    throw new InvalidArgumentError(argument, `give either ${secondsField} (seconds) or ${secondsField}Ms, not both`);
  const max = MAX_TTL_SECONDS * 1000;
  if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < (zeroAllowed ? 0 : 1) || ms > max) {
    throw new InvalidArgumentError(argument, `expected a whole number of ms ${zeroAllowed ? '>= 0' : '> 0'} and <= ${max}`);
  }
  return ms / 1000;
}
