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
  /**
   * Whether `publish` carries the W3C trace context of the active span (default true). When it does — only with an
   * OpenTelemetry SDK registered and a span active — the message is sent as a two-text JSON sequence (RFC 7464: the
   * context, then the message) that this library's subscribers unwrap before their handlers run, and whose consumer
   * spans join the publisher's trace. Set false when subscribers outside this library read the channels: every
   * message is then the plain JSON it always was.
   */
  propagateTraceContext?: boolean;
}

/** The `pubsub` section with its defaults applied, resolved once at startup (frozen). */
export interface PubSubSettings {
  readonly connection?: string;
  readonly maxQueuedMessages: number;
  readonly propagateTraceContext: boolean;
}

/** Injection token of the resolved {@link PubSubSettings}. */
export const PUBSUB_SETTINGS = Symbol('PubSubSettings');

const PUBSUB_SECTION = optionsSection<PubSubSettings>({
  maxQueuedMessages: { number: { min: 1, integer: true }, default: 10_000 },
  propagateTraceContext: { boolean: true, default: true },
});

/** Applies the defaults to a validated `pubsub` section. */
export const resolvePubSubSettings: (section?: PubSubOptions) => PubSubSettings = PUBSUB_SECTION.resolve;

/** Validates the `pubsub` section at startup; every error names the offending option. */
export const validatePubSubOptions = PUBSUB_SECTION.validate;
