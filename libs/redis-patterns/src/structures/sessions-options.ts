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
  /** Idle (sliding) lifetime of a session in ms when `create` gives none (default 86 400 000, one day). */
  defaultTtlMs?: number;
  /**
   * Absolute lifetime of a session in ms, counted from `create`, when `create` gives none (default: none).
   * `touch` never extends a session past it.
   */
  maxLifetimeMs?: number;
}

/** The `sessions` section with its defaults applied, resolved once at startup (frozen). */
export interface SessionsSettings {
  readonly connection?: string;
  readonly defaultTtlMs: number;
  readonly maxLifetimeMs?: number;
}

/** Injection token of the resolved {@link SessionsSettings}. */
export const SESSIONS_SETTINGS = Symbol('SessionsSettings');

/** Applies the defaults to a validated `sessions` section. */
export function resolveSessionsSettings(section: SessionsOptions = {}): SessionsSettings {
  return Object.freeze({
    connection: section.connection,
    defaultTtlMs: section.defaultTtlMs ?? 86_400_000,
    maxLifetimeMs: section.maxLifetimeMs,
  });
}

const KNOWN_KEYS = ['connection', 'defaultTtlMs', 'maxLifetimeMs'] as const;

/** Validates the `sessions` section at startup; every error names the offending option. */
export const validateSessionsOptions: SectionValidator = (value, path, context) => {
  const section = checkObject(value, path);
  checkKnownKeys(section, path, KNOWN_KEYS);
  checkConnectionName(section.connection, `${path}.connection`, context);
  checkOptionalNumber(section.defaultTtlMs, `${path}.defaultTtlMs`, { min: 1, integer: true, unit: 'ms' });
  checkOptionalNumber(section.maxLifetimeMs, `${path}.maxLifetimeMs`, { min: 1, integer: true, unit: 'ms' });
};
