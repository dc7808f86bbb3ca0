import { withDeadline } from '../core/time/with-deadline';
import {
  type CounterMetric,
  type HistogramMetric,
  libraryMeter,
  type MetricAttributes,
  type Observation,
  secondsSince,
} from '../core/telemetry/metrics';

/** What became of a stream entry a consumer was handed. */
export type StreamEntryOutcome = 'acked' | 'failed' | 'dead_lettered' | 'reclaimed';

const OUTCOMES: readonly StreamEntryOutcome[] = ['acked', 'failed', 'dead_lettered', 'reclaimed'];

/**
 * One consumer's stream metrics: `redis_patterns.stream.entries` by outcome and
 * `redis_patterns.stream.handler.duration`, both with the stream and group names (configured names, not data).
 */
export class StreamConsumerMetrics {
  private readonly entries: CounterMetric;
  private readonly handlerDuration: HistogramMetric;
  private readonly byOutcome: Readonly<Record<StreamEntryOutcome, MetricAttributes>>;
  private readonly names: MetricAttributes;

  constructor(stream: string, group: string, meter = libraryMeter()) {
    this.entries = meter.counter('redis_patterns.stream.entries', 'Stream entries handled by consumers, by outcome', '{entry}');
    this.handlerDuration = meter.histogram('redis_patterns.stream.handler.duration', 'Time a stream handler took on one entry', 's');
    this.names = Object.freeze({ stream, group });
    const entries = OUTCOMES.map((outcome) => [outcome, Object.freeze({ outcome, stream, group })] as const);
    this.byOutcome = Object.fromEntries(entries) as unknown as Record<StreamEntryOutcome, MetricAttributes>;
  }

  entry(outcome: StreamEntryOutcome, count = 1): void {
    this.entries.add(count, this.byOutcome[outcome]);
  }

  handled(startedAt: number): void {
    this.handlerDuration.record(secondsSince(startedAt), this.names);
  }
}

const PUBLISH = Object.freeze({ operation: 'publish' });
const RECEIVE = Object.freeze({ operation: 'receive' });

/** Pub/sub metrics: messages published and received, and handler errors (no channel attribute: names may be dynamic). */
export class PubSubMetrics {
  private readonly messages: CounterMetric;
  private readonly handlerErrors: CounterMetric;

  constructor(meter = libraryMeter()) {
    this.messages = meter.counter('redis_patterns.pubsub.messages', 'Pub/sub messages, by operation (publish, receive)', '{message}');
    this.handlerErrors = meter.counter('redis_patterns.pubsub.handler.errors', 'Pub/sub handlers that threw or rejected', '{error}');
  }

  published(): void {
    this.messages.add(1, PUBLISH);
  }

  received(): void {
    this.messages.add(1, RECEIVE);
  }

  handlerFailed(): void {
    this.handlerErrors.add(1);
  }
}

/** How long one reading of the consumer groups' backlog serves the gauges (both gauges read it once per collection). */
const BACKLOG_READ_TTL_MS = 1000;
/** Deadline of one XINFO GROUPS: a collection never waits longer on a slow server. */
const BACKLOG_READ_DEADLINE_MS = 1000;

/** A consumer group a running consumer reads, with its stream's raw key. */
export interface ObservedGroup {
  readonly stream: string;
  readonly group: string;
  readonly key: string;
}

/**
 * The consumer-group gauges `redis_patterns.stream.consumer.lag` (entries not yet delivered to the group) and
 * `redis_patterns.stream.consumer.pending` (delivered, not acknowledged), read when a reader collects: one
 * XINFO GROUPS per distinct group of the running consumers, shared by both gauges, each bounded by a deadline. A
 * group that cannot be read in time is left out of that collection.
 */
export function observeConsumerGroups(
  groups: () => Iterable<ObservedGroup>,
  backlog: (key: string, group: string) => Promise<{ pending: number; lag: number | null } | undefined>,
  meter = libraryMeter(),
): Observation {
  let reading: { at: number; result: Promise<Array<{ names: MetricAttributes; pending: number; lag: number | null }>> } | undefined;
  const read = () => {
    if (reading && Date.now() - reading.at < BACKLOG_READ_TTL_MS) return reading.result;
    const distinct = new Map<string, ObservedGroup>();
    for (const observed of groups()) distinct.set(`${observed.key}\n${observed.group}`, observed);
    const result = Promise.all(
      [...distinct.values()].map(async ({ stream, group, key }) => {
        const state = await withDeadline(backlog(key, group), BACKLOG_READ_DEADLINE_MS, () => undefined).catch(() => undefined);
        return state ? { names: Object.freeze({ stream, group }), ...state } : undefined;
      }),
    ).then((states) => states.filter((state) => state !== undefined));
    reading = { at: Date.now(), result };
    return result;
  };
  const lag = meter.observableGauge(
    'redis_patterns.stream.consumer.lag',
    'Entries of a stream not yet delivered to the group',
    '{entry}',
    async (observe) => {
      for (const state of await read()) if (state.lag !== null) observe(state.lag, state.names);
    },
  );
  const pending = meter.observableGauge(
    'redis_patterns.stream.consumer.pending',
    'Entries delivered to the group and not acknowledged',
    '{entry}',
    async (observe) => {
      for (const state of await read()) observe(state.pending, state.names);
    },
  );
  return {
    remove: () => {
      lag.remove();
      pending.remove();
    },
  };
}
