import { type CounterMetric, type HistogramMetric, libraryMeter, type MetricAttributes, secondsSince } from '../core/telemetry/metrics';

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
