import { checkKnownKeys, checkNumber, checkObject, checkString, invalid } from '../core/options/option-checks';
import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { InvalidOptionsError } from '../errors/invalid-options.error';

/** Options of a campaign: `LeaderElection.campaign(resource, options)` and `@RunOnLeader(resource, options)`. */
export interface CampaignOptions {
  /**
   * How long a term lasts without renewal, in ms (default 10000): the TTL of the lease in Redis. A leader that
   * cannot renew steps down before it ends; a crashed or frozen leader is replaced within `ttlMs + renewEveryMs`.
   */
  ttlMs?: number;
  /**
   * How often the leader renews its lease and followers try to take it, in ms (default `ttlMs / 3`, at most
   * `ttlMs / 2` so a failed renewal is retried before the lease ends).
   */
  renewEveryMs?: number;
}

/** A campaign's options with the defaults applied. */
export interface CampaignSettings {
  readonly ttlMs: number;
  readonly renewEveryMs: number;
}

export const DEFAULT_TTL_MS = 10_000;
/** The longest delay a Node.js timer takes: a lease is renewed by one. */
const MAX_TIMER_MS = 2_147_483_647;
/**
 * A resource names a job (`reports`, `billing.nightly`), never data: it is a metric attribute and a key part, so it is
 * limited to a configured-name alphabet and length (low cardinality by construction).
 */
const RESOURCE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}$/;
const RESOURCE_RULE = {
  pattern: RESOURCE_PATTERN,
  describe: 'a resource name: 1 to 100 letters, digits, "_", ".", ":" or "-" (not first)',
};
const KNOWN_KEYS = ['ttlMs', 'renewEveryMs'] as const;

/** Validates a resource at `path`, throwing InvalidOptionsError naming it. */
export function checkResourceOption(resource: unknown, path: string): string {
  return checkString(resource, path, RESOURCE_RULE);
}

/** Validates campaign options at `path` (e.g. `@RunOnLeader(Reports.run)`) and applies the defaults. */
export function resolveCampaignOptions(raw: unknown, path: string): CampaignSettings {
  const options = raw === undefined ? {} : checkObject(raw, path);
  checkKnownKeys(options, path, KNOWN_KEYS);
  const ttlMs =
    options.ttlMs === undefined
      ? DEFAULT_TTL_MS
      : checkNumber(options.ttlMs, `${path}.ttlMs`, { integer: true, min: 100, max: MAX_TIMER_MS, unit: 'ms' });
  if (options.renewEveryMs === undefined) return { ttlMs, renewEveryMs: Math.round(ttlMs / 3) };
  const renewEveryMs = checkNumber(options.renewEveryMs, `${path}.renewEveryMs`, { integer: true, min: 10, unit: 'ms' });
  if (renewEveryMs > Math.floor(ttlMs / 2))
    invalid(`${path}.renewEveryMs`, `an integer of at most ttlMs / 2 (${Math.floor(ttlMs / 2)}) (ms)`, renewEveryMs);
  return { ttlMs, renewEveryMs };
}

/**
 * The same checks for a call (`campaign(resource, options)`), failing with InvalidArgumentError naming the argument
 * (`resource`, `options.ttlMs` …) rather than an option.
 */
export function checkCampaignArguments(resource: unknown, options: unknown): { resource: string; settings: CampaignSettings } {
  try {
    return { resource: checkResourceOption(resource, 'resource'), settings: resolveCampaignOptions(options, 'options') };
  } catch (error) {
    if (error instanceof InvalidOptionsError) throw new InvalidArgumentError(error.option, `expected ${error.expected}`);
    throw error;
  }
}

/**
 * How long before its lease could expire in Redis a leader that has not renewed steps down, in ms: the lock's
 * clock-drift allowance (`ttlMs × lock.driftFactor + 2 ms`) plus room for the step-down timer to fire late on a
 * busy event loop (`ttlMs / 20`, at most 100 ms) and still precede the expiry. Measured from the send time of the
 * last successful renewal, which can only be earlier than the moment Redis set the TTL.
 */
export function stepDownMarginMs(ttlMs: number, driftFactor: number): number {
  return Math.ceil(ttlMs * driftFactor) + 2 + Math.min(Math.floor(ttlMs / 20), 100);
}

/** Whether two campaigns of one resource agree (one lease, one renewal interval per resource and instance). */
export function sameSettings(a: CampaignSettings, b: CampaignSettings): boolean {
  return a.ttlMs === b.ttlMs && a.renewEveryMs === b.renewEveryMs;
}

/** How settings read in an error message. */
export function describeSettings(settings: CampaignSettings): string {
  return `ttlMs ${settings.ttlMs}, renewEveryMs ${settings.renewEveryMs}`;
}
