import {
  checkConnectionName,
  checkKnownKeys,
  checkObject,
  checkOptionalNumber,
  type SectionValidator,
} from '../core/options/option-checks';

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

/** Applies the defaults to a validated `cappedList` section. */
export function resolveCappedListSettings(section: CappedListOptions = {}): CappedListSettings {
  return Object.freeze({
    connection: section.connection,
    defaultTtlMs: section.defaultTtlMs ?? 86_400_000,
    defaultMaxLength: section.defaultMaxLength ?? 100,
  });
}

const KNOWN_KEYS = ['connection', 'defaultTtlMs', 'defaultMaxLength'] as const;

/** Validates the `cappedList` section at startup; every error names the offending option. */
export const validateCappedListOptions: SectionValidator = (value, path, context) => {
  const section = checkObject(value, path);
  checkKnownKeys(section, path, KNOWN_KEYS);
  checkConnectionName(section.connection, `${path}.connection`, context);
  checkOptionalNumber(section.defaultTtlMs, `${path}.defaultTtlMs`, { min: 1, integer: true, unit: 'ms' });
  checkOptionalNumber(section.defaultMaxLength, `${path}.defaultMaxLength`, { min: 1, max: 1_000_000, integer: true });
};
