import { otelApi } from './otel-api';

/** Attribute values of a measurement: few and low-cardinality (never a key, a user id or a tracker value). */
export type MetricAttributes = Readonly<Record<string, string>>;

/** A monotonic counter (the part of OpenTelemetry's `Counter` the library uses). */
export interface CounterMetric {
  add(value: number, attributes?: MetricAttributes): void;
}

/** A distribution of values, e.g. durations in seconds (the part of OpenTelemetry's `Histogram` the library uses). */
export interface HistogramMetric {
  record(value: number, attributes?: MetricAttributes): void;
}

/** Reports the current totals of an observable counter when a reader collects. */
export type ObserveTotals = (observe: (value: number, attributes: MetricAttributes) => void) => void;

/** Creates the library's instruments; see {@link libraryMeter}. */
export interface LibraryMeter {
  counter(name: string, description: string, unit: string): CounterMetric;
  histogram(name: string, description: string, unit: string): HistogramMetric;
  /**
   * A counter whose totals the library keeps itself and reports at collection time: for the hottest paths, where
   * even the SDK's per-call attribute handling would cost a measurable share of a call.
   */
  observableCounter(name: string, description: string, unit: string, totals: ObserveTotals): Observation;
  /** A gauge read when a reader collects; `read` may be asynchronous (it is awaited by the collection). */
  observableGauge(name: string, description: string, unit: string, read: (observe: Observe) => Promise<void>): Observation;
}

/**
 * A callback registered with an observable instrument. `remove()` it when the application closes: the SDK keeps
 * callbacks for the life of its MeterProvider, so a closed application would go on reporting its frozen totals
 * (and stay reachable) in every later collection.
 */
export interface Observation {
  remove(): void;
}

/** Reports one value of an observable instrument. */
export type Observe = (value: number, attributes: MetricAttributes) => void;

interface OtelMeter {
  createCounter(name: string, options: { description: string; unit: string }): CounterMetric;
  createHistogram(
    name: string,
    options: { description: string; unit: string; advice?: { explicitBucketBoundaries: number[] } },
  ): HistogramMetric;
  createObservableCounter(name: string, options: { description: string; unit: string }): OtelObservable;
  createObservableGauge(name: string, options: { description: string; unit: string }): OtelObservable;
}

type OtelCallback = (result: { observe(value: number, attributes: MetricAttributes): void }) => void | Promise<void>;

interface OtelObservable {
  addCallback(callback: OtelCallback): void;
  removeCallback(callback: OtelCallback): void;
}

interface OtelApi {
  metrics: { getMeter(name: string, version?: string): OtelMeter };
}

/**
 * Bucket boundaries advised for every duration histogram, in seconds. The SDK's default boundaries (0, 5, 10, 25 …)
 * were chosen for milliseconds: in seconds every Redis-backed duration would fall in the first bucket and a p99 could
 * not be read. These span a sub-millisecond decision to a 30 s lock wait; an application's views still override them.
 */
export const DURATION_BUCKETS_SECONDS: readonly number[] = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
];

/** The instrumentation scope of every metric the library records. */
export const METER_NAME = 'nestjs-redis-patterns';

const NOTHING_OBSERVED: Observation = Object.freeze({ remove: () => undefined });

const NOOP: LibraryMeter = {
  counter: () => ({ add: () => undefined }),
  histogram: () => ({ record: () => undefined }),
  observableCounter: () => NOTHING_OBSERVED,
  observableGauge: () => NOTHING_OBSERVED,
};

function observe(instrument: OtelObservable, callback: OtelCallback): Observation {
  instrument.addCallback(callback);
  return { remove: () => instrument.removeCallback(callback) };
}

/**
 * The library's meter, from the global MeterProvider of `@opentelemetry/api` at the time of the call. The API is an
 * optional peer: without it installed every instrument is a no-op, and with it but no SDK registered the API's own
 * no-op meter answers. Patterns create their instruments once, when their service is constructed, so an SDK must be
 * registered before the application is created (as OpenTelemetry's Node setup does with `--require`).
 */
export function libraryMeter(): LibraryMeter {
  const api = otelApi<OtelApi>();
  if (!api) return NOOP;
  const meter = api.metrics.getMeter(METER_NAME);
  return {
    counter: (name, description, unit) => meter.createCounter(name, { description, unit }),
    histogram: (name, description, unit) =>
      meter.createHistogram(name, {
        description,
        unit,
        ...(unit === 's' ? { advice: { explicitBucketBoundaries: [...DURATION_BUCKETS_SECONDS] } } : {}),
      }),
    observableGauge: (name, description, unit, read) =>
      observe(meter.createObservableGauge(name, { description, unit }), (result) =>
        read((value, attributes) => result.observe(value, attributes)),
      ),
    observableCounter: (name, description, unit, totals) =>
      observe(meter.createObservableCounter(name, { description, unit }), (result) =>
        totals((value, attributes) => result.observe(value, attributes)),
      ),
  };
}

/** Seconds elapsed since `startedAt` (a `performance.now()` reading): OpenTelemetry records durations in seconds. */
export function secondsSince(startedAt: number): number {
  return (performance.now() - startedAt) / 1000;
}
