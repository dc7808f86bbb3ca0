import {
  checkConnectionName,
  checkKnownKeys,
  checkObject,
  checkOptionalNumber,
  type SectionValidator,
} from '../core/options/option-checks';

/** Options of the `sessions` section of RedisPatternsModuleOptions. */
export interface SessionsOptions {
  /** Name of the connection this pattern uses (default: the default connection). */
  connection?: string;
  /** Idle (sliding) lifetime of a session in seconds when `create` gives none (default 86400, one day). */
  defaultTtl?: number;
  /**
   * Absolute lifetime of a session in seconds, counted from `create`, when `create` gives none (default: none).
   * `touch` never extends a session past it.
   */
  maxLifetime?: number;
}

/** Defaults of the `sessions` section. */
export const SESSION_DEFAULTS = { defaultTtl: 86_400 } as const;

const KNOWN_KEYS = ['connection', 'defaultTtl', 'maxLifetime'] as const;

/** Validates the `sessions` section at startup; every error names the offending option. */
export const validateSessionsOptions: SectionValidator = (value, path, context) => {
  const section = checkObject(value, path);
  checkKnownKeys(section, path, KNOWN_KEYS);
  checkConnectionName(section.connection, `${path}.connection`, context);
  checkOptionalNumber(section.defaultTtl, `${path}.defaultTtl`, { min: 1, integer: true, unit: 'seconds' });
  checkOptionalNumber(section.maxLifetime, `${path}.maxLifetime`, { min: 1, integer: true, unit: 'seconds' });
};
