import { optionsSection } from '../core/options/options-section';

/** Options of the `cappedList` section of RedisPatternsModuleOptions. */
export interface CappedListOptions {
  /** Name of the connection this pattern uses (default: the default connection). */
  connection?: string;
  /** TTL in ms of a list, renewed by every push, when the call gives none (default 86 400 000, one day). */
  defaultTtlMs?: number;
  /** Number of newest items kept when the call gives no `maxLength` (default 100). */
  defaultMaxLength?: number;
}

/** The `cappedList` section with its defaults applied, resolved once at startup (frozen). */
export interface CappedListSettings {
  readonly connection?: string;
  readonly defaultTtlMs: number;
  readonly defaultMaxLength: number;
}

/** Injection token of the resolved {@link CappedListSettings}. */
export const CAPPED_LIST_SETTINGS = Symbol('CappedListSettings');

const CAPPED_LIST_SECTION = optionsSection<CappedListSettings>({
  defaultTtlMs: { number: { min: 1, integer: true, unit: 'ms' }, default: 86_400_000 },
  defaultMaxLength: { number: { min: 1, max: 1_000_000, integer: true }, default: 100 },
});

/** Applies the defaults to a validated `cappedList` section. */
export const resolveCappedListSettings: (section?: CappedListOptions) => CappedListSettings = CAPPED_LIST_SECTION.resolve;

/** Validates the `cappedList` section at startup; every error names the offending option. */
export const validateCappedListOptions = CAPPED_LIST_SECTION.validate;
