/** The W3C trace context header names, used as they are for the fields of stream entries and pub/sub envelopes. */
export const TRACEPARENT = 'traceparent';
export const TRACESTATE = 'tracestate';

/** W3C trace context as carried in a message: `traceparent`, and `tracestate` when the trace has one. */
export interface TraceCarrier {
  readonly traceparent: string;
  readonly tracestate?: string;
}

/**
 * The trace context held by `source` (what a propagator wrote, or what a message carried), or undefined when it has
 * no string `traceparent`. Other keys (baggage, vendor headers) are not carried.
 */
export function carrierOf(source: unknown): TraceCarrier | undefined {
  if (typeof source !== 'object' || source === null) return undefined;
  const { traceparent, tracestate } = source as Record<string, unknown>;
  if (typeof traceparent !== 'string' || traceparent.length === 0) return undefined;
  return typeof tracestate === 'string' && tracestate.length > 0 ? { traceparent, tracestate } : { traceparent };
}
