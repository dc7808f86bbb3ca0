import type { StreamConsumerMetrics } from './messaging.metrics';
import { recordFailure, type TraceSpan } from '../core/telemetry/tracing';
import type { TraceCarrier } from '../core/telemetry/trace-context';
import { outcome, type StreamConsumerTracing } from './messaging.tracing';
import { withoutTraceFields } from './trace-envelope';
import type { LoggerService } from '@nestjs/common';
import { deadLetter } from './dead-letter';
import type { ResolvedConsumerSettings, StreamHandler } from './stream-consume-options';
import type { RawEntry } from './stream-replies';
import type { StreamsStore } from './streams.store';

/** An entry with the delivery count Redis holds for it (this delivery included). */
export interface DeliveredEntry extends RawEntry {
  readonly deliveries: number;
}

/** Counters of one consumer, for tests, health and benchmarks. */
export interface StreamConsumerStats {
  /** Handler calls that resolved (their entries were acknowledged). */
  processed: number;
  /** Handler calls that threw. */
  failed: number;
  /** Entries copied to the dead-letter stream. */
  deadLettered: number;
  /** Entries taken over from idle pending lists (a crashed, stuck or failed earlier delivery). */
  reclaimed: number;
}

export interface BatchContext {
  readonly settings: ResolvedConsumerSettings;
  readonly store: StreamsStore;
  readonly keys: { source: string; deadLetter: string };
  readonly deadLetterMaxLength: number;
  readonly handler: StreamHandler;
  readonly stats: StreamConsumerStats;
  readonly metrics: StreamConsumerMetrics;
  readonly tracing: StreamConsumerTracing;
  readonly logger: LoggerService;
  /** Tracks a background write (an XACK) so `stop()` can wait for it. */
  track(write: Promise<unknown>): void;
}

/**
 * Runs the handler over one batch with bounded concurrency, then acknowledges every success with ONE XACK (the
 * batch ack is what makes a consumer fast: one round trip per batch, not per entry). A failure stays pending and
 * comes back through XAUTOCLAIM after `claimIdleMs`; the delivery that reaches `maxDeliveries` and fails, or an
 * entry delivered more often than that (its consumers crashed), is dead-lettered instead. With `awaitAck` it
 * resolves only once the XACK is answered (redelivered entries are acknowledged one by one before the next is read).
 */
export async function processBatch(
  ctx: BatchContext,
  entries: readonly DeliveredEntry[],
  options: { awaitAck?: boolean } = {},
): Promise<void> {
  const { settings, stats } = ctx;
  const acks: string[] = [];
  const letters: Array<Promise<void>> = [];
  const giveUp = (entry: DeliveredEntry, error: string, trace: TraceCarrier | undefined): void => {
    stats.deadLettered++;
    letters.push(
      deadLetter(ctx.store, ctx.keys, ctx.deadLetterMaxLength, {
        sourceStream: settings.stream,
        sourceId: entry.id,
        group: settings.group,
        consumer: settings.consumer,
        fields: entry.fields ?? {},
        deliveries: entry.deliveries,
        error,
        trace,
      }).then(
        () => ctx.metrics.entry('dead_lettered'),
        (e: unknown) => {
          stats.deadLettered--;
          ctx.logger.error(`Could not dead-letter ${settings.stream}/${entry.id}; it stays pending: ${describe(e)}`);
        },
      ),
    );
  };
  // With tracing live, each entry is handled inside its span (the dead letter then carries that span's context).
  const handleEntry = async (entry: DeliveredEntry, fields: Record<string, string>, span: TraceSpan | undefined): Promise<void> => {
    if (entry.deliveries > settings.maxDeliveries) {
      outcome(span, 'dead_lettered');
      giveUp(
        entry,
        `delivered ${entry.deliveries} times (maxDeliveries ${settings.maxDeliveries}) without an acknowledgement: its consumer crashed or stalled`,
        span && ctx.tracing.inject(),
      );
      return;
    }
    const startedAt = performance.now();
    try {
      // Trace context fields are the library's: the handler receives the fields the producer gave.
      await ctx.handler({ id: entry.id, stream: settings.stream, fields: withoutTraceFields(fields), deliveries: entry.deliveries });
      ctx.metrics.handled(startedAt);
      stats.processed++;
      ctx.metrics.entry('acked');
      outcome(span, 'acked');
      acks.push(entry.id);
    } catch (error) {
      ctx.metrics.handled(startedAt);
      stats.failed++;
      ctx.metrics.entry('failed');
      if (span) recordFailure(span, error);
      if (entry.deliveries >= settings.maxDeliveries) {
        outcome(span, 'dead_lettered');
        giveUp(entry, describe(error), span && ctx.tracing.inject());
      } else {
        outcome(span, 'failed');
        ctx.logger.warn(
          `Handler failed on ${settings.stream}/${entry.id} (delivery ${entry.deliveries} of ${settings.maxDeliveries}); retried after ${settings.claimIdleMs} ms: ${describe(error)}`,
        );
      }
    }
  };
  const handle = (entry: DeliveredEntry): Promise<void> => {
    const fields = entry.fields;
    if (fields === null) {
      // Deleted or trimmed while pending (Redis < 7 still hands it out): nothing to process, only the PEL slot to free.
      acks.push(entry.id);
      return DONE;
    }
    if (!ctx.tracing.live) return handleEntry(entry, fields, undefined);
    return ctx.tracing.run(entry, fields, (span) => handleEntry(entry, fields, span));
  };
  await runBounded(entries, settings.concurrency, handle);
  if (acks.length > 0) {
    const ack = ctx.store.ack(ctx.keys.source, settings.group, acks).catch((error: unknown) => {
      // The entries stay pending and are redelivered after claimIdleMs: a duplicate, never a loss.
      ctx.logger.error(`XACK of ${acks.length} entries of ${settings.stream} failed; they will be redelivered: ${describe(error)}`);
    });
    ctx.track(ack);
    if (options.awaitAck) await ack;
  }
  if (letters.length > 0) await Promise.all(letters);
}

const DONE = Promise.resolve();

/** Calls `fn` on every item with at most `limit` calls in flight. */
async function runBounded<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  if (limit <= 1 || items.length <= 1) {
    for (const item of items) await fn(item);
    return;
  }
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

export function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
