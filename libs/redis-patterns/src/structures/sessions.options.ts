import { optionsSection } from '../core/options/options-section';

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

const SESSIONS_SECTION = optionsSection<SessionsSettings>({
  defaultTtlMs: { number: { min: 1, integer: true, unit: 'ms' }, default: 86_400_000 },
  maxLifetimeMs: { number: { min: 1, integer: true, unit: 'ms' } },
});

/** Applies the defaults to a validated `sessions` section. */
export const resolveSessionsSettings: (section?: SessionsOptions) => SessionsSettings = SESSIONS_SECTION.resolve;

/** Validates the `sessions` section at startup; every error names the offending option. */
export const validateSessionsOptions = SESSIONS_SECTION.validate;
