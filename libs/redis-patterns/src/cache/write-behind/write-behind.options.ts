import { invalid, type SectionValidator } from '../../core/options/option-checks';
import { optionsSection, type SectionField } from '../../core/options/options-section';
import { DEFAULT_CONNECTION } from '../../core/options/resolve-options';

/**
 * Options of the `writeBehind` section of RedisPatternsModuleOptions: how the write-behind queues of the cache are
 * partitioned and flushed. Queues live on the cache's connection (a write and its entry change in one step there).
 */
export interface WriteBehindOptions {
  /** Name of the connection: the cache's (the default, and the only one accepted: a write changes a cache entry). */
  connection?: string;
  /**
   * Streams each queue is split into (default 8), each in its own slot on a cluster; a key always goes to the same
   * one. Changing it while writes are pending can reorder them: drain first.
   */
  partitions?: number;
  /** Most changes handed to a writer at once (default 100). */
  batchSize?: number;
  /** How often each instance collects pending changes, in ms (default 1000): a write reaches its writer within about this. */
  delayMs?: number;
  /**
   * A partition whose writer failed is tried again after this long, in ms (default 2000), doubling with each failure
   * in a row (with jitter) up to `maxRetryDelayMs`.
   */
  retryDelayMs?: number;
  /**
   * Longest wait between two attempts of a failing partition, in ms (default 60000, or `retryDelayMs` when that is
   * longer): how long a partition can lag behind once its data source is back.
   */
  maxRetryDelayMs?: number;
  /** Attempts a change gets before it is dead-lettered with its value and error (default 5). */
  maxAttempts?: number;
  /**
   * TTL of a partition's lease, in ms (default 30000): kept alive while its instance flushes, so an instance that
   * stops (crashes) mid-flush hands its partitions over after at most this long.
   */
  leaseTtlMs?: number;
  /** Approximate length cap of a queue's dead-letter stream (default 10000). */
  deadLetterMaxLength?: number;
}

/** The `writeBehind` section with every default applied. */
export interface WriteBehindSettings {
  readonly connection?: string;
  readonly partitions: number;
  readonly batchSize: number;
  readonly delayMs: number;
  readonly retryDelayMs: number;
  readonly maxRetryDelayMs: number;
  readonly maxAttempts: number;
  readonly leaseTtlMs: number;
  readonly deadLetterMaxLength: number;
}

const DEFAULT_RETRY_DELAY_MS = 2000;
const DEFAULT_MAX_RETRY_DELAY_MS = 60_000;

const SECTION = optionsSection<WriteBehindSettings>({
  partitions: { number: { min: 1, max: 1024, integer: true }, default: 8 },
  batchSize: { number: { min: 1, max: 10_000, integer: true }, default: 100 },
  delayMs: { number: { min: 1, max: 3_600_000, integer: true, unit: 'ms' }, default: 1000 },
  retryDelayMs: { number: { min: 1, max: 3_600_000, integer: true, unit: 'ms' }, default: DEFAULT_RETRY_DELAY_MS },
  // Its default depends on retryDelayMs: applied in resolveWriteBehindSettings.
  maxRetryDelayMs: { number: { min: 1, max: 3_600_000, integer: true, unit: 'ms' } },
  maxAttempts: { number: { min: 1, max: 1_000_000, integer: true }, default: 5 },
  leaseTtlMs: { number: { min: 100, max: 3_600_000, integer: true, unit: 'ms' }, default: 30_000 },
  deadLetterMaxLength: { number: { min: 1, integer: true }, default: 10_000 },
} satisfies Record<Exclude<keyof WriteBehindSettings, 'connection'>, SectionField>);

/** Applies the defaults to a validated `writeBehind` section. */
export function resolveWriteBehindSettings(section?: WriteBehindOptions): WriteBehindSettings {
  const settings = SECTION.resolve(section);
  if (section?.maxRetryDelayMs !== undefined) return settings;
  return Object.freeze({ ...settings, maxRetryDelayMs: Math.max(DEFAULT_MAX_RETRY_DELAY_MS, settings.retryDelayMs) });
}

/**
 * Validates the `writeBehind` section at startup; every error names the offending option. Its connection can only be
 * the cache's: a write changes a cache entry and its change record in one script.
 */
export const validateWriteBehindOptions: SectionValidator = (value, path, context) => {
  SECTION.validate(value, path, context);
  const { retryDelayMs = DEFAULT_RETRY_DELAY_MS, maxRetryDelayMs } = value as WriteBehindOptions;
  if (maxRetryDelayMs !== undefined && maxRetryDelayMs < retryDelayMs)
    invalid(`${path}.maxRetryDelayMs`, `an integer of at least retryDelayMs (${retryDelayMs}) (ms)`, maxRetryDelayMs);
  const connection = (value as { connection?: unknown }).connection;
  const cache = (context.sections?.cache as { connection?: unknown } | undefined)?.connection ?? DEFAULT_CONNECTION;
  if (connection !== undefined && connection !== cache)
    invalid(`${path}.connection`, `the cache's connection ("${String(cache)}")`, connection);
};

/** Injection token of the resolved {@link WriteBehindSettings}. */
export const WRITE_BEHIND_SETTINGS = Symbol('WriteBehindSettings');
