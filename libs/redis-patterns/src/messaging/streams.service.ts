import { Inject, Injectable } from '@nestjs/common';
import { KeyBuilder } from '../core/keys/key-builder';
import { checkNumber } from '../core/options/option-checks';
import { libraryTracer } from '../core/telemetry/tracing';
import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { type DeadLetterReplay, replayDeadLetters } from './dead-letter-replay';
import type { ConsumeOptions } from './stream-consume-options';
import type { StreamConsumerHandle } from './stream-consumer';
import { STREAMS_NUMBER_RULES, STREAMS_SETTINGS, type StreamsSettings } from './streams.options';
import { STREAM_NAMESPACE, StreamsRuntime } from './streams.runtime';
import { STREAMS_STORE, type StreamsStore } from './streams.store';
import { appendTraceFields } from './trace-envelope';

/** Field values accepted by `add`; numbers are stored as their decimal string. */
export type StreamFields = Record<string, string | number>;

/**
 * Redis Streams with consumer groups: durable, at-least-once delivery with acknowledgements, reclaim of entries
 * left behind by crashed consumers (XAUTOCLAIM) and a dead-letter stream for entries that keep failing. Every
 * consumer it starts is stopped and drained at shutdown, before the module closes connections.
 */
@Injectable()
export class StreamsService {
  private readonly tracer = libraryTracer();

  /** Created by the module's dependency injection; not part of the public API. @internal */
  constructor(
    private readonly keys: KeyBuilder,
    @Inject(STREAMS_SETTINGS) private readonly settings: StreamsSettings,
    @Inject(STREAMS_STORE) private readonly store: StreamsStore,
    private readonly runtime: StreamsRuntime,
  ) {}

  /** The raw Redis key of a stream name (for redis-cli and monitoring). */
  keyOf(stream: string): string {
    checkStreamName(stream, 'stream');
    return this.keys.key(STREAM_NAMESPACE, stream);
  }

  /**
   * Appends an entry and resolves to its id. The stream is capped with approximate trimming (`MAXLEN ~ maxLength`,
   * default from `streams.maxLength`): a stream is bounded by length instead of a TTL. Trimming can drop entries a
   * group has not read yet, so size `maxLength` for the worst consumer backlog. Inside a traced span (an OpenTelemetry
   * SDK registered) the entry also gets `traceparent` (and `tracestate`) fields, which consumers strip again.
   * @throws RedisUnavailableError when Redis is unreachable (503 with `Retry-After` over HTTP).
   */
  async add(stream: string, fields: StreamFields, options: { maxLength?: number } = {}): Promise<string> {
    const key = this.keyOf(stream);
    const flat = flattenFields(fields);
    if (this.tracer.live) appendTraceFields(flat, fields, this.tracer.inject());
    const maxLength =
      options.maxLength === undefined
        ? this.settings.maxLength
        : checkArg(options.maxLength, 'options.maxLength', STREAMS_NUMBER_RULES.maxLength);
    return this.store.add(key, flat, maxLength);
  }

  /**
   * Starts a consumer of `group` on `stream` and returns its handle at once (reading begins in the background;
   * `handle.ready` resolves when the group exists). The handler's success acknowledges an entry; a throw leaves it
   * pending for a retry after `claimIdleMs`; the `maxDeliveries`-th failed delivery dead-letters it. Handlers must
   * be idempotent: a crash between handling and acknowledging redelivers the entry (use `message.id` as the key).
   */
  consume(options: ConsumeOptions): StreamConsumerHandle {
    return this.runtime.startConsumer(options, { kind: 'argument', path: 'options' });
  }

  /**
   * Moves up to `count` entries (default 1000) of a dead-letter stream back to the stream they came from (their
   * original fields, as new entries), oldest first, and resolves to how many were moved and which were skipped. Each
   * entry is re-added before it is deleted from the dead-letter stream, so a crash can duplicate an entry, never
   * lose it. An entry whose original fields cannot be replayed (malformed JSON, written by hand or by another tool)
   * is skipped, left in the dead-letter stream and reported with its id and the reason; it does not count towards
   * `count`. Fix the cause first.
   *
   * @example
   * const { replayed, skipped } = await streams.replayDeadLetters('orders');
   * for (const { id, reason } of skipped) logger.warn(`dead letter ${id} not replayed: ${reason}`);
   */
  async replayDeadLetters(stream: string, options: { deadLetterStream?: string; count?: number } = {}): Promise<DeadLetterReplay> {
    const source = this.keyOf(stream);
    const deadLetter = this.keyOf(options.deadLetterStream ?? `${stream}.dlq`);
    const count = options.count === undefined ? 1000 : checkArg(options.count, 'options.count', { min: 1, integer: true });
    const result = await replayDeadLetters(
      this.store,
      { source, deadLetter },
      {
        count,
        maxLength: this.settings.maxLength,
        toFields: (fields) => {
          const flat = flattenFields(fields);
          // The entry keeps the trace context it had; one without joins the replaying span's trace.
          if (this.tracer.live) appendTraceFields(flat, fields, this.tracer.inject());
          return flat;
        },
      },
    );
    if (result.skipped.length > 0) {
      this.runtime.logger.warn(
        `${result.skipped.length} dead-letter entr${result.skipped.length === 1 ? 'y' : 'ies'} of ${JSON.stringify(stream)} ` +
          `could not be replayed and stay in the dead-letter stream (first: ${result.skipped[0].id}, ${JSON.stringify(result.skipped[0].reason)})`,
      );
    }
    return result;
  }
}

function checkStreamName(stream: unknown, argument: string): void {
  if (typeof stream !== 'string' || stream.length === 0 || stream.length > 200) {
    throw new InvalidArgumentError(argument, 'expected a non-empty string of at most 200 characters');
  }
}

function checkArg(value: unknown, argument: string, rule: Parameters<typeof checkNumber>[2]): number {
  try {
    return checkNumber(value, argument, rule);
  } catch (error) {
    throw new InvalidArgumentError(argument, `expected ${(error as { expected: string }).expected}`);
  }
}

function flattenFields(fields: StreamFields): string[] {
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields))
    throw new InvalidArgumentError('fields', 'expected an object of field names to strings or numbers');
  const flat: string[] = [];
  for (const [name, value] of Object.entries(fields)) {
    if (typeof value !== 'string' && !(typeof value === 'number' && Number.isFinite(value))) {
      throw new InvalidArgumentError(`fields.${name}`, 'expected a string or a finite number');
    }
    flat.push(name, String(value));
  }
  if (flat.length === 0) throw new InvalidArgumentError('fields', 'expected at least one field');
  return flat;
}
