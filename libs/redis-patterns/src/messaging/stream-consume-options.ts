import { checkNumber } from '../core/options/option-checks';
import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { InvalidOptionsError } from '../errors/invalid-options.error';
import { STREAMS_DEFAULTS, STREAMS_NUMBER_RULES, type StreamsOptions } from './streams.options';

/** One entry handed to a stream handler. */
export interface StreamMessage {
  /** The entry id (`<ms>-<seq>`), unique in the stream: the natural idempotency key. */
  readonly id: string;
  /** The stream name as given to `add` / `consume`. */
  readonly stream: string;
  /** The entry's fields, as strings. */
  readonly fields: Record<string, string>;
  /** How many times Redis has delivered this entry, this delivery included (1 on the first). */
  readonly deliveries: number;
}

/** Processes one entry; resolving acknowledges it, throwing leaves it pending for a retry. */
export type StreamHandler = (message: StreamMessage) => unknown;

/** Settings of one consumer; unset numbers fall back to the `streams` module section, then to the defaults. */
export interface StreamConsumerSettings {
  /** The stream name (escaped into `<keyPrefix>:stream:<stream>`). */
  stream: string;
  /** The consumer group, created on first use (from the start of the stream). */
  group: string;
  /** The consumer name inside the group (default: host, pid and a random suffix). Reuse it across restarts to read back its own pending entries at once. */
  consumer?: string;
  /** Entries per XREADGROUP and per XACK (default 100). */
  batchSize?: number;
  /** XREADGROUP BLOCK, in ms (default 2000). */
  blockMs?: number;
  /** Handlers running at once (default 1). */
  concurrency?: number;
  /** Pending entries idle longer than this are reclaimed with XAUTOCLAIM, in ms (default 30000). Keep it above the slowest handler. */
  claimIdleMs?: number;
  /** Deliveries an entry gets before it is dead-lettered (default 5). */
  maxDeliveries?: number;
  /** The dead-letter stream name (default `<stream>.dlq`). */
  deadLetterStream?: string;
  /** How long `stop()` waits for in-flight handlers, in ms (default 10000). */
  stopTimeoutMs?: number;
}

/** Arguments of `StreamsService.consume`. */
export interface ConsumeOptions extends StreamConsumerSettings {
  /** Called for each entry: resolving acknowledges it, throwing leaves it pending for a retry (see `maxDeliveries`). */
  handler: StreamHandler;
}

/** Settings after validation, every default applied. */
export interface ResolvedConsumerSettings {
  readonly stream: string;
  readonly group: string;
  readonly consumer: string;
  readonly batchSize: number;
  readonly blockMs: number;
  readonly concurrency: number;
  readonly claimIdleMs: number;
  readonly maxDeliveries: number;
  readonly deadLetterStream: string;
  readonly stopTimeoutMs: number;
}

const SETTING_KEYS = [
  'stream',
  'group',
  'consumer',
  'batchSize',
  'blockMs',
  'concurrency',
  'claimIdleMs',
  'maxDeliveries',
  'deadLetterStream',
  'stopTimeoutMs',
];
const NUMBERS = ['batchSize', 'blockMs', 'concurrency', 'claimIdleMs', 'maxDeliveries', 'stopTimeoutMs'] as const;

/**
 * Validates consumer settings and applies defaults. `source` decides the error: a `consume()` call gets an
 * `InvalidArgumentError` naming the argument, a decorator an `InvalidOptionsError` (at startup).
 */
export function resolveConsumerSettings(
  input: Partial<ConsumeOptions>,
  section: StreamsOptions | undefined,
  defaultConsumer: () => string,
  source: { kind: 'argument' | 'option'; path: string; extraKeys?: string[] },
): ResolvedConsumerSettings {
  const fail = (name: string, expected: string): never => {
    const path = `${source.path}.${name}`;
    throw source.kind === 'argument'
      ? new InvalidArgumentError(path, `expected ${expected}`)
      : new InvalidOptionsError(path, expected, describeGot(input[name as keyof ConsumeOptions]));
  };
  if (typeof input !== 'object' || input === null) fail('', 'an object');
  for (const key of Object.keys(input)) {
    if (!SETTING_KEYS.includes(key) && !(source.extraKeys ?? []).includes(key))
      fail(key, `one of the known options (${SETTING_KEYS.join(', ')})`);
  }
  const name = (key: 'stream' | 'group' | 'consumer' | 'deadLetterStream'): string | undefined => {
    const value = input[key];
    if (value === undefined && (key === 'consumer' || key === 'deadLetterStream')) return undefined;
    if (typeof value !== 'string' || value.length === 0 || value.length > 200) fail(key, 'a non-empty string of at most 200 characters');
    return value as string;
  };
  const stream = name('stream')!;
  const group = name('group')!;
  const consumer = name('consumer') ?? defaultConsumer();
  const deadLetterStream = name('deadLetterStream') ?? `${stream}.dlq`;
  if (deadLetterStream === stream) fail('deadLetterStream', 'a stream other than the consumed one');
  const numbers = {} as Record<(typeof NUMBERS)[number], number>;
  for (const key of NUMBERS) {
    const value = input[key] ?? section?.[key] ?? STREAMS_DEFAULTS[key];
    try {
      numbers[key] = checkNumber(value, key, STREAMS_NUMBER_RULES[key]);
    } catch (error) {
      fail(key, (error as InvalidOptionsError).expected);
    }
  }
  return { stream, group, consumer, deadLetterStream, ...numbers };
}

function describeGot(value: unknown): string {
  return value === undefined ? 'undefined' : typeof value === 'string' ? JSON.stringify(value.slice(0, 40)) : typeof value;
}
