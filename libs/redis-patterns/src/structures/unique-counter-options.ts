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
  /** TTL in seconds of a counter, renewed by every `add` and `merge`, when the call gives none (default 86400). */
  defaultTtl?: number;
}

/** Defaults of the `uniqueCounter` section. */
export const UNIQUE_COUNTER_DEFAULTS = { defaultTtl: 86_400 } as const;

const KNOWN_KEYS = ['connection', 'defaultTtl'] as const;

/** Validates the `uniqueCounter` section at startup; every error names the offending option. */
export const validateUniqueCounterOptions: SectionValidator = (value, path, context) => {
  const section = checkObject(value, path);
  checkKnownKeys(section, path, KNOWN_KEYS);
  checkConnectionName(section.connection, `${path}.connection`, context);
  checkOptionalNumber(section.defaultTtl, `${path}.defaultTtl`, { min: 1, integer: true, unit: 'seconds' });
};
