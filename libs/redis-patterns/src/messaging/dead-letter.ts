import type { TraceCarrier } from '../core/telemetry/trace-context';
import type { StreamsStore } from './streams.store';
import { appendTraceFields } from './trace-envelope';

/**
 * Fields of a dead-letter entry. The original fields are kept as one JSON field so they can never collide with
 * ours, and so `StreamsService.replayDeadLetters` can re-add them unchanged (their trace context included). A
 * traced consumer also writes `traceparent` / `tracestate`: the context of the span that gave the entry up.
 */
export const DEAD_LETTER_FIELDS = {
  /** JSON object of the original entry's fields. */
  fields: 'fields',
  /** The stream name the entry came from. */
  sourceStream: 'sourceStream',
  /** The original entry id (idempotency key: a dead-letter entry may be written twice, see below). */
  sourceId: 'sourceId',
  group: 'group',
  consumer: 'consumer',
  /** Deliveries counted by Redis when the entry was given up. */
  deliveries: 'deliveries',
  /** The last handler error, or why no error is known (a crashed or timed-out consumer). */
  error: 'error',
  /** When it was dead-lettered (ms since the epoch, local clock: informational only). */
  deadLetteredAt: 'deadLetteredAt',
} as const;

/** What one dead-lettering writes. */
export interface DeadLetter {
  readonly sourceStream: string;
  readonly sourceId: string;
  readonly group: string;
  readonly consumer: string;
  readonly fields: Record<string, string>;
  readonly deliveries: number;
  readonly error: string;
  /** The trace context of the span that gave up on the entry (written as `traceparent` / `tracestate`). */
  readonly trace?: TraceCarrier;
}

const MAX_ERROR_LENGTH = 2000;

/**
 * Copies an entry to the dead-letter stream (capped with MAXLEN ~), then acknowledges it on the source. The two
 * streams may live on different cluster slots, so this is two commands in this order: a crash in between leaves
 * the entry pending, and it is dead-lettered again (a duplicate with the same `sourceId`), never lost.
 */
export async function deadLetter(
  store: StreamsStore,
  keys: { source: string; deadLetter: string },
  maxLength: number,
  letter: DeadLetter,
): Promise<void> {
  const F = DEAD_LETTER_FIELDS;
  const fields = [
    F.fields,
    JSON.stringify(letter.fields),
    F.sourceStream,
    letter.sourceStream,
    F.sourceId,
    letter.sourceId,
    F.group,
    letter.group,
    F.consumer,
    letter.consumer,
    F.deliveries,
    String(letter.deliveries),
    F.error,
    letter.error.slice(0, MAX_ERROR_LENGTH),
    F.deadLetteredAt,
    String(Date.now()),
  ];
  appendTraceFields(fields, {}, letter.trace);
  await store.deadLetter({ key: keys.source, group: letter.group, id: letter.sourceId }, keys.deadLetter, fields, maxLength);
}
