import { optionsSection } from '../core/options/options-section';

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

const PUBSUB_SECTION = optionsSection<PubSubSettings>({
  maxQueuedMessages: { number: { min: 1, integer: true }, default: 10_000 },
});

/** Applies the defaults to a validated `pubsub` section. */
export const resolvePubSubSettings: (section?: PubSubOptions) => PubSubSettings = PUBSUB_SECTION.resolve;

/** Validates the `pubsub` section at startup; every error names the offending option. */
export const validatePubSubOptions = PUBSUB_SECTION.validate;
