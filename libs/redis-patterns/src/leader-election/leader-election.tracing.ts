import { type LibraryTracer, libraryTracer, markError } from '../core/telemetry/tracing';
import type { LeaderTerm } from './leader-term';
import { LeaderTermEndedError } from './leader-term-ended.error';

/** The span of a `@RunOnLeader` method run by the leader. */
const RUN_SPAN = 'redis_patterns.leader_election.run';
const RESOURCE = 'redis_patterns.leader_election.resource';
const OUTCOME = 'redis_patterns.leader_election.outcome';

/**
 * Leader election's spans, like the lock's hold span: a `@RunOnLeader` run gets one only inside a trace (the
 * caller's span is its parent), and a term that ends while it runs adds an event and marks it failed. The resource is
 * recorded: it is a configured name, never data.
 */
export class LeaderElectionTracing {
  constructor(private readonly tracer: LibraryTracer = libraryTracer()) {}

  /** Runs `work` (a `@RunOnLeader` method, `method` its `Class.method`) in a run span when inside a trace. */
  run<T>(method: string, term: LeaderTerm, work: () => Promise<T>): Promise<T> {
    const span = this.tracer.live
      ? this.tracer.startChild(RUN_SPAN, { 'code.function.name': method, [RESOURCE]: term.resource })
      : undefined;
    if (!span) return work();
    const ended = (): void => {
      const reason = term.signal.reason as LeaderTermEndedError;
      span.addEvent('redis_patterns.leader_election.term_ended', { 'redis_patterns.leader_election.end_reason': reason.reason });
      markError(span, 'The leader term ended while the method ran');
    };
    if (term.signal.aborted) ended();
    else term.signal.addEventListener('abort', ended, { once: true });
    return this.tracer.run(
      span,
      async () => {
        try {
          return await work();
        } finally {
          term.signal.removeEventListener('abort', ended);
          span.setAttribute(OUTCOME, term.signal.aborted ? 'term_ended' : 'completed');
        }
      },
      (error) => (error instanceof LeaderTermEndedError ? { name: error.name, message: error.message } : undefined),
    );
  }
}
