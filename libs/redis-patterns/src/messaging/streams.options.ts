import { optionsSection, type SectionField } from '../core/options/options-section';

/**
 * Options of the `streams` section of RedisPatternsModuleOptions: the connection, and defaults for every
 * `StreamsService.add` / `consume` call and `@StreamConsumer` that does not set its own.
 */
export interface StreamsOptions {
  /** Name of the connection this pattern uses (default: the default connection). */
  connection?: string;
  /** Approximate length cap applied by `add()` (XADD MAXLEN ~), default 100000. */
  maxLength?: number;
  /** Entries read (and acknowledged) per XREADGROUP, default 100. */
  batchSize?: number;
  /** How long one XREADGROUP waits for new entries, in ms (default 2000). */
  blockMs?: number;
  /** Handlers running at once per consumer, default 1. */
  concurrency?: number;
  /** Entries pending longer than this (a crashed or stuck consumer) are reclaimed, in ms (default 30000). */
  claimIdleMs?: number;
  /** Deliveries after which an entry goes to the dead-letter stream, default 5. */
  maxDeliveries?: number;
  /** How long `stop()` waits for in-flight handlers, in ms (default 10000). */
  stopTimeoutMs?: number;
  /** Approximate length cap of dead-letter streams, default 10000. */
  deadLetterMaxLength?: number;
}

/** The defaults of {@link StreamsOptions}. */
export const STREAMS_DEFAULTS = {
  maxLength: 100_000,
  batchSize: 100,
  blockMs: 2000,
  concurrency: 1,
  claimIdleMs: 30_000,
  maxDeliveries: 5,
  stopTimeoutMs: 10_000,
  deadLetterMaxLength: 10_000,
} as const;

/** The `streams` section with every default applied, resolved once at startup (frozen). */
export type StreamsSettings = Readonly<Omit<Required<StreamsOptions>, 'connection'>> & { readonly connection?: string };

/** Injection token of the resolved {@link StreamsSettings}. */
export const STREAMS_SETTINGS = Symbol('StreamsSettings');

/** The numeric options and their rules; `consume()` arguments and `@StreamConsumer` options reuse them. */
export const STREAMS_NUMBER_RULES = {
  maxLength: { min: 1, integer: true },
  batchSize: { min: 1, max: 10_000, integer: true },
  blockMs: { min: 1, max: 3_600_000, integer: true, unit: 'ms' },
  concurrency: { min: 1, max: 10_000, integer: true },
  claimIdleMs: { min: 1, integer: true, unit: 'ms' },
  maxDeliveries: { min: 1, max: 1_000_000, integer: true },
  stopTimeoutMs: { min: 0, integer: true, unit: 'ms' },
  deadLetterMaxLength: { min: 1, integer: true },
} as const;

const STREAMS_SECTION = optionsSection<StreamsSettings>(
  Object.fromEntries(
    Object.entries(STREAMS_NUMBER_RULES).map(([name, rule]) => [
      name,
      { number: rule, default: STREAMS_DEFAULTS[name as keyof typeof STREAMS_DEFAULTS] },
    ]),
  ) as Record<keyof typeof STREAMS_NUMBER_RULES, SectionField>,
);

/** Applies the defaults to a validated `streams` section (an option given as undefined keeps its default). */
export const resolveStreamsSettings: (section?: StreamsOptions) => StreamsSettings = STREAMS_SECTION.resolve;

/** Validates the `streams` section at startup; every error names the offending option. */
export const validateStreamsOptions = STREAMS_SECTION.validate;
