import {
  checkConnectionName,
  checkKnownKeys,
  checkObject,
  checkOptionalNumber,
  type SectionValidator,
} from '../core/options/option-checks';

/** Options of the `uniqueCounter` section of RedisPatternsModuleOptions. */
export interface UniqueCounterOptions {
  /** Name of the connection this pattern uses (default: the default connection). */
  connection?: string;
  /** TTL in ms of a counter, renewed by every `add` and `merge`, when the call gives none (default 86 400 000). */
  defaultTtlMs?: number;
}

/** The `uniqueCounter` section with its defaults applied, resolved once at startup (frozen). */
export interface UniqueCounterSettings {
  readonly connection?: string;
  readonly defaultTtlMs: number;
}

/** Injection token of the resolved {@link UniqueCounterSettings}. */
export const UNIQUE_COUNTER_SETTINGS = Symbol('UniqueCounterSettings');

/** Applies the defaults to a validated `uniqueCounter` section. */
export function resolveUniqueCounterSettings(section: UniqueCounterOptions = {}): UniqueCounterSettings {
  return Object.freeze({ connection: section.connection, defaultTtlMs: section.defaultTtlMs ?? 86_400_000 });
}

const KNOWN_KEYS = ['connection', 'defaultTtlMs'] as const;

/** Validates the `uniqueCounter` section at startup; every error names the offending option. */
export const validateUniqueCounterOptions: SectionValidator = (value, path, context) => {
  const section = checkObject(value, path);
  checkKnownKeys(section, path, KNOWN_KEYS);
  checkConnectionName(section.connection, `${path}.connection`, context);
  checkOptionalNumber(section.defaultTtlMs, `${path}.defaultTtlMs`, { min: 1, integer: true, unit: 'ms' });
};
