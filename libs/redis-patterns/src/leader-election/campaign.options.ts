import { checkKnownKeys, checkNumber, checkObject, checkString, invalid } from '../core/options/option-checks';
import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { InvalidOptionsError } from '../errors/invalid-options.error';

/** Options of a campaign: `LeaderElection.campaign(role, options)` and `@RunOnLeader(role, options)`. */
export interface CampaignOptions {
  /**
   * How long a term lasts without renewal, in ms (default 10000): the TTL of the lease in Redis. A leader that
   * cannot renew steps down before it ends; a crashed or frozen leader is replaced within `leaseMs + renewEveryMs`.
   */
  leaseMs?: number;
  /**
   * How often the leader renews its lease and followers try to take it, in ms (default `leaseMs / 3`, at most
   * `leaseMs / 2` so a failed renewal is retried before the lease ends).
   */
  renewEveryMs?: number;
}

/** A campaign's options with the defaults applied. */
export interface CampaignSettings {
  readonly leaseMs: number;
  readonly renewEveryMs: number;
}

export const DEFAULT_LEASE_MS = 10_000;
/** The longest delay a Node.js timer takes: a lease is renewed by one. */
const MAX_TIMER_MS = 2_147_483_647;
/**
 * A role names a job (`reports`, `billing.nightly`), never data: it is a metric attribute and a key part, so it is
 * limited to a configured-name alphabet and length (low cardinality by construction).
 */
const ROLE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}$/;
const ROLE_RULE = { pattern: ROLE_PATTERN, describe: 'a role name: 1 to 100 letters, digits, "_", ".", ":" or "-" (not first)' };
const KNOWN_KEYS = ['leaseMs', 'renewEveryMs'] as const;

/** Validates a role at `path`, throwing InvalidOptionsError naming it. */
export function checkRoleOption(role: unknown, path: string): string {
  return checkString(role, path, ROLE_RULE);
}

/** Validates campaign options at `path` (e.g. `@RunOnLeader(Reports.run)`) and applies the defaults. */
export function resolveCampaignOptions(raw: unknown, path: string): CampaignSettings {
  const options = raw === undefined ? {} : checkObject(raw, path);
  checkKnownKeys(options, path, KNOWN_KEYS);
  const leaseMs =
    options.leaseMs === undefined
      ? DEFAULT_LEASE_MS
      : checkNumber(options.leaseMs, `${path}.leaseMs`, { integer: true, min: 100, max: MAX_TIMER_MS, unit: 'ms' });
  if (options.renewEveryMs === undefined) return { leaseMs, renewEveryMs: Math.round(leaseMs / 3) };
  const renewEveryMs = checkNumber(options.renewEveryMs, `${path}.renewEveryMs`, { integer: true, min: 10, unit: 'ms' });
  if (renewEveryMs > Math.floor(leaseMs / 2))
    invalid(`${path}.renewEveryMs`, `an integer of at most leaseMs / 2 (${Math.floor(leaseMs / 2)}) (ms)`, renewEveryMs);
  return { leaseMs, renewEveryMs };
}

/**
 * The same checks for a call (`campaign(role, options)`), failing with InvalidArgumentError naming the argument
 * (`role`, `options.leaseMs` …) rather than an option.
 */
export function checkCampaignArguments(role: unknown, options: unknown): { role: string; settings: CampaignSettings } {
  try {
    return { role: checkRoleOption(role, 'role'), settings: resolveCampaignOptions(options, 'options') };
  } catch (error) {
    if (error instanceof InvalidOptionsError) throw new InvalidArgumentError(error.option, `expected ${error.expected}`);
    throw error;
  }
}

/**
 * How long before its lease could expire in Redis a leader that has not renewed steps down, in ms: the lock's
 * clock-drift allowance (`leaseMs × lock.driftFactor + 2 ms`) plus room for the step-down timer to fire late on a
 * busy event loop (`leaseMs / 20`, at most 100 ms) and still precede the expiry. Measured from the send time of the
 * last successful renewal, which can only be earlier than the moment Redis set the TTL.
 */
export function stepDownMarginMs(leaseMs: number, driftFactor: number): number {
  return Math.ceil(leaseMs * driftFactor) + 2 + Math.min(Math.floor(leaseMs / 20), 100);
}

/** Whether two campaigns of one role agree (one lease, one renewal interval per role and instance). */
export function sameSettings(a: CampaignSettings, b: CampaignSettings): boolean {
  return a.leaseMs === b.leaseMs && a.renewEveryMs === b.renewEveryMs;
}

/** How settings read in an error message. */
export function describeSettings(settings: CampaignSettings): string {
  return `leaseMs ${settings.leaseMs}, renewEveryMs ${settings.renewEveryMs}`;
}
