import { optionsSection } from '../core/options/options-section';

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

const UNIQUE_COUNTER_SECTION = optionsSection<UniqueCounterSettings>({
  defaultTtlMs: { number: { min: 1, integer: true, unit: 'ms' }, default: 86_400_000 },
});

/** Applies the defaults to a validated `uniqueCounter` section. */
export const resolveUniqueCounterSettings: (section?: UniqueCounterOptions) => UniqueCounterSettings = UNIQUE_COUNTER_SECTION.resolve;

/** Validates the `uniqueCounter` section at startup; every error names the offending option. */
export const validateUniqueCounterOptions = UNIQUE_COUNTER_SECTION.validate;
