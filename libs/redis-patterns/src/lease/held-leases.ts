import type { LoggerService } from '@nestjs/common';
import type { TraceSpan } from '../core/telemetry/tracing';
import { withDeadline } from '../core/time/with-deadline';
import { keepLeaseAlive } from './keep-alive';
import { LazyAbort } from './lazy-abort';
import type { Lease, LostOf } from './lease';

const ignore = (): void => undefined;

/** The spans of work held under a lease (the lock's `LockTracing`): one per hold, marked when the lease is lost. */
export interface HoldTracing<TLost> {
  /** Whether a trace is active (a hold span is started only inside one). */
  readonly live: boolean;
  /** A hold span, child of the caller's; `method` is the `Class.method` of a decorated method. */
  startHold(method: string | undefined): TraceSpan | undefined;
  /** Runs the held work (and the release) in `span`, then ends it with its outcome. */
  run<T>(span: TraceSpan, held: () => Promise<T>): Promise<T>;
  /** Marks the moment the lease was known lost (the AbortSignal fired). */
  lost(span: TraceSpan, reason: TLost): void;
}

/** What {@link HeldLeases} needs from the service that owns it. */
export interface HeldLeasesOptions<L extends Lease> {
  /** Leases are extended every `ttlMs × autoExtendRatio` while their work runs. */
  readonly autoExtendRatio: number;
  readonly logger: LoggerService;
  /** The logger context of its warnings (`LockService`). */
  readonly logContext: string;
  /** Counts a lease lost while its work ran (the AbortSignal fired). */
  lost(): void;
  /** Hold spans, when the service traces its leases. */
  readonly tracing?: HoldTracing<LostOf<L>>;
  /**
   * Runs the work in its lease's async context (e.g. for `LockService.current()`); default: as is. `abort.signal`
   * is made when it is first read: read it only when asked for.
   */
  enter?<T>(lease: L, abort: LazyAbort, work: () => Promise<T> | T): Promise<T> | T;
}

/**
 * The leases a service holds (locks, read and write leases, permits) and the work running under them: `run()`
 * extends a lease while its work runs (keepLeaseAlive), aborts the work's signal once the lease is known lost, and
 * gives the lease back when the work settles; `close()` does the shutdown part, before the connections close.
 */
export class HeldLeases<L extends Lease> {
  /** Held leases → when each was acquired (`performance.now()`), for the hold-duration metric. */
  private readonly held = new Map<L, number>();
  private readonly running = new Map<Promise<unknown>, { lease: L; abort: (reason: Error) => void }>();

  constructor(private readonly options: HeldLeasesOptions<L>) {}

  add(lease: L, acquiredAt: number): void {
    this.held.set(lease, acquiredAt);
  }

  /** Stops tracking a lease (released or known lost); returns when it was acquired, if it was tracked. */
  delete(lease: L): number | undefined {
    const acquiredAt = this.held.get(lease);
    this.held.delete(lease);
    return acquiredAt;
  }

  list(): L[] {
    return [...this.held.keys()];
  }

  /**
   * Runs `work` under `lease`, already acquired: extends it every `ttlMs × autoExtendRatio`, aborts `signal` with the
   * lease's lost error as soon as the lease is known lost (an extension finds it gone, or its validity ends without
   * one), and gives it back when `work` settles. The result or error of `work` propagates unchanged; a failed release
   * is logged, never thrown. Inside a trace, the work runs in a hold span (`method`: a decorated method's name).
   */
  run<M extends L, T>(lease: M, work: (signal: AbortSignal, lease: M) => Promise<T> | T, method?: string): Promise<T> {
    return this.hold(lease, (abort) => work(abort.signal, lease), method);
  }

  /**
   * {@link run} for a decorated method, which is handed no signal: its signal is made only if the method asks for it
   * (`LockService.currentSignal()`), so a hold whose lease is not lost creates none.
   */
  runAdvised<T>(lease: L, proceed: () => Promise<T> | T, method?: string): Promise<T> {
    return this.hold(lease, () => proceed(), method);
  }

  private hold<T>(lease: L, work: (abort: LazyAbort) => Promise<T> | T, method: string | undefined): Promise<T> {
    const { tracing, enter } = this.options;
    const abort = new LazyAbort();
    const span = tracing?.live ? tracing.startHold(method) : undefined;
    const intervalMs = Math.max(1, Math.floor(lease.ttlMs * this.options.autoExtendRatio));
    const lost = (reason: LostOf<L>): void => {
      if (!abort.aborted) {
        this.options.lost();
        if (span) tracing!.lost(span, reason);
      }
      abort.abort(reason);
    };
    const keepAlive = keepLeaseAlive<L>(lease, lease.ttlMs, intervalMs, lost, this.options.logger);
    const call = (): Promise<T> | T => work(abort);
    const settle = (): Promise<void> => {
      keepAlive.stop();
      return this.releaseQuietly(lease);
    };
    // Callbacks rather than an async function: fewer promises on a path every held call takes (see acquireLease).
    const held = (): Promise<T> => {
      keepAlive.start();
      let working: Promise<T>;
      try {
        working = Promise.resolve(enter ? enter(lease, abort, call) : call());
      } catch (error) {
        working = Promise.reject(error);
      }
      return working.then(
        (value) => settle().then(() => value),
        (error: unknown) =>
          settle().then(() => {
            throw error;
          }),
      );
    };
    const run = span ? tracing!.run(span, held) : held();
    this.running.set(run, { lease, abort: (reason) => abort.abort(reason) });
    const done = (): boolean => this.running.delete(run);
    void run.then(done, done);
    return run;
  }

  /**
   * At shutdown: gives running work up to `timeoutMs` to finish, aborts the rest, then gives back every lease still
   * held.
   */
  async close(timeoutMs: number): Promise<void> {
    if (this.running.size > 0) {
      await withDeadline(Promise.allSettled([...this.running.keys()]), timeoutMs, () => undefined);
      for (const { lease, abort } of this.running.values()) abort(lease.lostError('the application is shutting down'));
    }
    await Promise.allSettled(this.list().map((lease) => this.releaseQuietly(lease)));
  }

  /** Gives a lease back; a failure is logged (the lease then expires with its TTL), never thrown. */
  releaseQuietly(lease: L): Promise<void> {
    let releasing: Promise<boolean>;
    try {
      releasing = lease.release();
    } catch (error) {
      releasing = Promise.reject(error);
    }
    return releasing.then(ignore, (error: unknown) => {
      this.options.logger.warn?.(
        `Could not release ${lease.label} (it expires with its TTL): ${(error as Error).message}`,
        this.options.logContext,
      );
    });
  }
}
