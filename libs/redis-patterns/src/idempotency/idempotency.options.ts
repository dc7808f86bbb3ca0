import { checkConnectionName, checkKnownKeys, checkObject, type SectionValidator } from '../core/options/option-checks';

/** Options of the `idempotency` section of RedisPatternsModuleOptions. */
export interface IdempotencyOptions {
  /** Name of the connection this pattern uses (default: the default connection). */
  connection?: string;
}

const KNOWN_KEYS = ['connection'] as const;

/** Validates the `idempotency` section at startup; every error names the offending option. */
export const validateIdempotencyOptions: SectionValidator = (value, path, context) => {
  const section = checkObject(value, path);
  checkKnownKeys(section, path, KNOWN_KEYS);
  checkConnectionName(section.connection, `${path}.connection`, context);
};
