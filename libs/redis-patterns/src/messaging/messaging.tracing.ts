import { carrierOf, type TraceCarrier } from '../core/telemetry/trace-context';
import { type LibraryTracer, libraryTracer, type SpanAttributes, type TraceSpan } from '../core/telemetry/tracing';
import type { MessageHandler, QueuedHandler } from './handler-queue';

/** OpenTelemetry messaging attributes every consumer span of the library has (Redis is not a registered system). */
const PROCESS = Object.freeze({
  'messaging.system': 'redis',
  'messaging.operation.type': 'process',
  'messaging.operation.name': 'process',
});

/** What became of a stream entry, on its span (`redis_patterns.stream.outcome`). */
export type StreamSpanOutcome = 'acked' | 'failed' | 'dead_lettered';

/**
 * The spans of one stream consumer: a CONSUMER span `process <stream>` per entry it handles, with the stream and
 * group names as configured (as the metrics have them), continuing the producer's trace when the entry carries one.
 */
export class StreamConsumerTracing {
  readonly live: boolean;
  private readonly name: string;
  private readonly attributes: SpanAttributes;

  constructor(
    stream: string,
    group: string,
    private readonly tracer: LibraryTracer = libraryTracer(),
  ) {
    this.live = tracer.live;
    this.name = `process ${stream}`;
    this.attributes = Object.freeze({ ...PROCESS, 'messaging.destination.name': stream, 'messaging.consumer.group.name': group });
  }

  /** Runs `handle` inside the span of `entry` (live only); `handle` records the outcome with {@link outcome}. */
  run(
    entry: { readonly id: string; readonly deliveries: number },
    fields: Record<string, string>,
    handle: (span: TraceSpan) => Promise<void>,
  ): Promise<void> {
    return this.tracer.consume(this.name, this.attributes, carrierOf(fields), (span) => {
      span.setAttribute('messaging.message.id', entry.id);
      span.setAttribute('redis_patterns.stream.deliveries', entry.deliveries);
      return handle(span);
    });
  }

  /** The trace context of the active span — the entry's, inside {@link run} — for the entry's dead letter. */
  inject(): TraceCarrier | undefined {
    return this.tracer.inject();
  }
}

/** Records what became of an entry on its span, when it has one. */
export function outcome(span: TraceSpan | undefined, value: StreamSpanOutcome): void {
  span?.setAttribute('redis_patterns.stream.outcome', value);
}

/**
 * The spans of pub/sub deliveries: one CONSUMER span per message and handler. `destination` names the span
 * (`process <destination>`) only for a channel or pattern fixed in code (`@OnRedisMessage`): one given to
 * `subscribe()` may be built from data (`user:42`), so its spans are named `process` and carry no destination.
 */
export class PubSubTracing {
  readonly live: boolean;

  constructor(private readonly tracer: LibraryTracer = libraryTracer()) {
    this.live = tracer.live;
  }

  /** The trace context `publish` carries: the active span's. */
  inject(): TraceCarrier | undefined {
    return this.tracer.inject();
  }

  /** How a subscription's queue calls `handler`: inside a span per message when tracing is live. */
  handlerFor(handler: MessageHandler, destination: { name: string; isPattern: boolean } | undefined): QueuedHandler {
    if (!this.live) return (message, channel) => handler(message, channel);
    const name = destination === undefined ? 'process' : `process ${destination.name}`;
    const attributes: SpanAttributes =
      destination === undefined
        ? PROCESS
        : Object.freeze({
            ...PROCESS,
            [destination.isPattern ? 'messaging.destination.template' : 'messaging.destination.name']: destination.name,
          });
    return (message, channel, carrier) => this.tracer.consume(name, attributes, carrier, () => handler(message, channel));
  }
}
