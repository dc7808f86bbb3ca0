import { parseJsonSafely } from '../core/serialization/parse-json-safely';
import { carrierOf, TRACEPARENT, TRACESTATE, type TraceCarrier } from '../core/telemetry/trace-context';

// How trace context travels with messages (docs/observability.md, "Traces"): as two extra fields of a stream
// entry, and as an RFC 7464 JSON text sequence around a pub/sub message.

/** RFC 7464's record separator: it starts every text of a JSON text sequence, and no JSON text. */
const RS = '\u001e';
const RS_CODE = 0x1e;
/** Where the first text (the trace context) ends and the second (the message) begins. */
const SEPARATOR = '\n\u001e';

/**
 * A pub/sub message with its trace context: the JSON text sequence `RS {"traceparent":…,"tracestate":…} LF RS
 * <message JSON> LF`. JSON.stringify escapes every control character, so neither text can contain the separator.
 */
export function wrapWithTraceContext(payload: string, carrier: TraceCarrier): string {
  return `${RS}${JSON.stringify(carrier)}${SEPARATOR}${payload}\n`;
}

/** Whether a received pub/sub message may carry trace context (one character compared: the common case is no). */
export function mayCarryTraceContext(message: string): boolean {
  return message.charCodeAt(0) === RS_CODE;
}

/**
 * Splits a received pub/sub message into its payload and trace context: a message that is not a two-text sequence
 * with a trace context first (plain JSON, or text from another tool) comes back as it is, without one.
 */
export function unwrapTraceContext(message: string): { payload: string; carrier?: TraceCarrier } {
  if (!mayCarryTraceContext(message)) return { payload: message };
  const end = message.indexOf(SEPARATOR, 1);
  if (end < 0) return { payload: message };
  let header: unknown;
  try {
    header = parseJsonSafely(message.slice(1, end));
  } catch {
    return { payload: message };
  }
  const carrier = carrierOf(header);
  if (carrier === undefined) return { payload: message };
  const last = message.length - 1;
  return { payload: message.slice(end + SEPARATOR.length, message.charCodeAt(last) === 0x0a ? last : undefined), carrier };
}

/**
 * Appends the trace context to the flat field list of a new stream entry, unless the caller set `traceparent`
 * itself (its own context is then kept as given).
 */
export function appendTraceFields(flat: string[], fields: object, carrier: TraceCarrier | undefined): void {
  if (carrier === undefined || Object.hasOwn(fields, TRACEPARENT)) return;
  flat.push(TRACEPARENT, carrier.traceparent);
  if (carrier.tracestate !== undefined) flat.push(TRACESTATE, carrier.tracestate);
}

/**
 * The fields a stream handler receives: an entry's fields without `traceparent` and `tracestate` (read them with
 * `carrierOf`). The entry's own object is returned when it carries neither, the common case: no copy.
 */
export function withoutTraceFields(fields: Record<string, string>): Record<string, string> {
  if (fields[TRACEPARENT] === undefined && fields[TRACESTATE] === undefined) return fields;
  const { [TRACEPARENT]: _traceparent, [TRACESTATE]: _tracestate, ...rest } = fields;
  return rest;
}
