import { type LibraryTracer, libraryTracer, markError, type TraceSpan } from '../core/telemetry/tracing';
import type { HoldTracing } from '../lease/held-leases';
import { LockLostError } from '../lease/lock-lost.error';

/** The span of work held under a lock (`using()`, `@WithLock`), from acquisition to release. */
const LOCK_HOLD_SPAN = 'redis_patterns.lock.hold';
const OUTCOME = 'redis_patterns.lock.outcome';
const USING = Object.freeze({});

/**
 * The locks' spans. The lock's resource is never recorded (it usually holds ids): not as an attribute, and not in
 * the message of a LockLostError the work throws. A hold is traced only inside a trace (the caller's span is its
 * parent); a lock taken outside one adds no root span.
 */
export class LockTracing implements HoldTracing<LockLostError> {
  /** Hold spans whose lock was lost while the work ran. */
  private readonly lostSpans = new WeakSet<TraceSpan>();

  constructor(private readonly tracer: LibraryTracer = libraryTracer()) {}

  get live(): boolean {
    return this.tracer.live;
  }

  /** A hold span, child of the caller's; `method` is the `Class.method` of a `@WithLock` method. */
  startHold(method: string | undefined): TraceSpan | undefined {
    return this.tracer.startChild(LOCK_HOLD_SPAN, method === undefined ? USING : { 'code.function.name': method });
  }

  /** Runs the held work (and the release) in `span`, then ends it with its outcome. */
  run<T>(span: TraceSpan, held: () => Promise<T>): Promise<T> {
    return this.tracer.run(
      span,
      async () => {
        try {
          return await held();
        } finally {
          span.setAttribute(OUTCOME, this.lostSpans.has(span) ? 'lost' : 'released');
        }
      },
      (error) => (error instanceof LockLostError ? { name: error.name, message: `Lock lost: ${error.detail}` } : undefined),
    );
  }

  /** Marks the moment the lock was known lost (the AbortSignal fired) with an event, and the span as failed. */
  lost(span: TraceSpan, reason: LockLostError): void {
    this.lostSpans.add(span);
    span.addEvent('redis_patterns.lock.lost', { 'redis_patterns.lock.loss_reason': reason.detail });
    markError(span, 'The lock was lost while its work ran');
  }
}
