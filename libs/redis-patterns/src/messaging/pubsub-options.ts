import {
  checkConnectionName,
  checkKnownKeys,
  checkObject,
  checkOptionalNumber,
  type SectionValidator,
} from '../core/options/option-checks';

/** Options of the `pubsub` section of RedisPatternsModuleOptions. */
export interface PubSubOptions {
  /** Name of the connection this pattern uses (default: the default connection). */
  connection?: string;
  /**
   * Messages buffered per handler while it is still busy with earlier ones (default 10000). A handler that falls
   * further behind loses the newest messages (counted and logged) instead of growing memory without bound.
   */
  maxQueuedMessages?: number;
}

/** The `pubsub` section with its defaults applied, resolved once at startup (frozen). */
export interface PubSubSettings {
  readonly connection?: string;
  readonly maxQueuedMessages: number;
}

/** Injection token of the resolved {@link PubSubSettings}. */
export const PUBSUB_SETTINGS = Symbol('PubSubSettings');

/** Applies the defaults to a validated `pubsub` section. */
export function resolvePubSubSettings(section: PubSubOptions = {}): PubSubSettings {
  return Object.freeze({ connection: section.connection, maxQueuedMessages: section.maxQueuedMessages ?? 10_000 });
}

const KNOWN_KEYS = ['connection', 'maxQueuedMessages'] as const;

/** Validates the `pubsub` section at startup; every error names the offending option. */
export const validatePubSubOptions: SectionValidator = (value, path, context) => {
  const section = checkObject(value, path);
  checkKnownKeys(section, path, KNOWN_KEYS);
  checkConnectionName(section.connection, `${path}.connection`, context);
  checkOptionalNumber(section.maxQueuedMessages, `${path}.maxQueuedMessages`, { min: 1, integer: true });
};
