import { METER_NAME } from './metrics';
import { otelApi } from './otel-api';
import { carrierOf, type TraceCarrier } from './trace-context';

/** The instrumentation scope of every span the library starts (the same as its metrics'). */
export const TRACER_NAME = METER_NAME;

/** Attributes of a span. Never a key, a lock resource or anything else taken from the data. */
export type SpanAttributes = Readonly<Record<string, string | number | boolean>>;

/** The part of an OpenTelemetry `Span` the library uses. */
export interface TraceSpan {
  setAttribute(key: string, value: string | number | boolean): unknown;
  addEvent(name: string, attributes?: SpanAttributes): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  recordException(exception: { name: string; message: string; stack?: string }): void;
  end(): void;
}

// OpenTelemetry's SpanKind and SpanStatusCode values (stable since API 1.0).
const INTERNAL = 0;
const CONSUMER = 4;
const STATUS_ERROR = 2;

/** An OpenTelemetry `Context`: opaque here. */
type OtelContext = object;

interface SpanContext {
  readonly traceId: string;
  readonly spanId: string;
}

interface OtelTracer {
  startSpan(
    name: string,
    options: { kind: number; attributes?: SpanAttributes; links?: Array<{ context: SpanContext }> },
    context: OtelContext,
  ): TraceSpan;
}

interface OtelTraceApi {
  trace: {
    getTracer(name: string): OtelTracer;
    getSpanContext(context: OtelContext): SpanContext | undefined;
    setSpan(context: OtelContext, span: TraceSpan): OtelContext;
    isSpanContextValid(spanContext: SpanContext): boolean;
  };
  context: {
    active(): OtelContext;
    with<T>(context: OtelContext, fn: () => T): T;
  };
  propagation: {
    inject(context: OtelContext, carrier: Record<string, string>): void;
    extract(context: OtelContext, carrier: object): OtelContext;
  };
  ProxyTracer: abstract new (...args: never[]) => unknown;
  ROOT_CONTEXT: OtelContext;
}

/**
 * The library's tracer. Whether tracing is live is decided once, when it is created (see {@link libraryTracer}):
 * when it is not, every method returns at once without calling OpenTelemetry or allocating, and call sites test
 * {@link LibraryTracer.live} before building anything for a span.
 */
export class LibraryTracer {
  /** False without `@opentelemetry/api`, or with it but no TracerProvider registered when this tracer was made. */
  readonly live: boolean;

  /** @internal Use {@link libraryTracer}. */
  constructor(
    private readonly api: OtelTraceApi | null,
    private readonly tracer: OtelTracer | null,
  ) {
    this.live = api !== null && tracer !== null;
  }

  /**
   * A span for part of the caller's work (a loader, a lock hold): a child of the active span, or undefined when
   * there is none — the library's internal spans never start a trace of their own.
   */
  startChild(name: string, attributes?: SpanAttributes): TraceSpan | undefined {
    if (!this.live) return undefined;
    const active = this.api!.context.active();
    if (!this.validSpanIn(active)) return undefined;
    return this.tracer!.startSpan(name, { kind: INTERNAL, attributes }, active);
  }

  /**
   * Runs `work` (live only) in a CONSUMER span for one delivered message, as {@link run} does. The span continues
   * the trace of `carrier` (the producer's span is its parent, and is linked too, as OpenTelemetry's messaging
   * conventions ask) or starts a new trace: never a child of whatever context the delivery happens to run in (a
   * consumer loop started inside a request would otherwise parent every message to that request).
   */
  consume<T>(
    name: string,
    attributes: SpanAttributes,
    carrier: TraceCarrier | undefined,
    work: (span: TraceSpan) => T | Promise<T>,
  ): Promise<T> {
    const api = this.api!;
    let parent = api.ROOT_CONTEXT;
    let links: Array<{ context: SpanContext }> | undefined;
    if (carrier !== undefined) {
      const extracted = api.propagation.extract(api.ROOT_CONTEXT, carrier);
      const producer = this.validSpanIn(extracted);
      if (producer) {
        parent = extracted;
        links = [{ context: producer }];
      }
    }
    const span = this.tracer!.startSpan(name, { kind: CONSUMER, attributes, links }, parent);
    return this.runIn(parent, span, () => work(span));
  }

  /**
   * Runs `work` with `span` active (so spans made inside, e.g. by instrumentation-ioredis, are its children),
   * records a throw or rejection on it (exception event, status ERROR, `error.type`) and ends it. `describeError`
   * may replace what is recorded of an error whose message carries data (a lock resource).
   */
  run<T>(
    span: TraceSpan,
    work: () => T | Promise<T>,
    describeError?: (error: unknown) => { name: string; message: string } | undefined,
  ): Promise<T> {
    return this.runIn(this.api!.context.active(), span, work, describeError);
  }

  private async runIn<T>(
    base: OtelContext,
    span: TraceSpan,
    work: () => T | Promise<T>,
    describeError?: (error: unknown) => { name: string; message: string } | undefined,
  ): Promise<T> {
    const api = this.api!;
    try {
      return await api.context.with(api.trace.setSpan(base, span), work);
    } catch (error) {
      recordFailure(span, error, describeError?.(error));
      throw error;
    } finally {
      span.end();
    }
  }

  /**
   * The W3C trace context (`traceparent`, `tracestate`) of the active span, through the global propagator; undefined
   * when tracing is off, no span is active, or the propagator writes no `traceparent`.
   */
  inject(): TraceCarrier | undefined {
    if (!this.live) return undefined;
    const active = this.api!.context.active();
    if (!this.validSpanIn(active)) return undefined;
    const carrier: Record<string, string> = {};
    this.api!.propagation.inject(active, carrier);
    return carrierOf(carrier);
  }

  /** Calls `fn` outside any trace (for loops that outlive the call that started them). */
  detached<T>(fn: () => T): T {
    return this.live ? this.api!.context.with(this.api!.ROOT_CONTEXT, fn) : fn();
  }

  private validSpanIn(context: OtelContext): SpanContext | undefined {
    const spanContext = this.api!.trace.getSpanContext(context);
    return spanContext !== undefined && this.api!.trace.isSpanContextValid(spanContext) ? spanContext : undefined;
  }
}

const OFF = new LibraryTracer(null, null);

/**
 * The library's tracer, from the global TracerProvider of `@opentelemetry/api` at the time of the call. Without the
 * optional peer, or with it but no TracerProvider registered, it is off: nothing is traced or propagated, at no
 * cost. Patterns take theirs when their service is constructed, so — as for metrics — an SDK must be registered
 * before the application is created.
 */
export function libraryTracer(): LibraryTracer {
  const api = otelApi<OtelTraceApi>();
  if (!api) return OFF;
  const tracer = api.trace.getTracer(TRACER_NAME);
  // With no provider registered the API hands out a proxy that answers with its no-op tracer.
  return tracer instanceof api.ProxyTracer ? OFF : new LibraryTracer(api, tracer);
}

/**
 * Records a failure on `span` the way OpenTelemetry's conventions ask: an `exception` event, status ERROR with the
 * message, and `error.type` (the error's name). `described` replaces the error's own name and message.
 */
export function recordFailure(span: TraceSpan, error: unknown, described?: { name: string; message: string }): void {
  const recorded =
    described ??
    (error instanceof Error
      ? { name: error.name, message: error.message, stack: error.stack }
      : { name: typeof error, message: String(error) });
  span.recordException(recorded);
  span.setStatus({ code: STATUS_ERROR, message: recorded.message });
  span.setAttribute('error.type', recorded.name || '_OTHER');
}

/** Sets status ERROR on `span` without an exception (a lock lost while its work succeeded). */
export function markError(span: TraceSpan, message: string): void {
  span.setStatus({ code: STATUS_ERROR, message });
}
