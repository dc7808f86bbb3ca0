import { type CounterMetric, type HistogramMetric, libraryMeter, type MetricAttributes, secondsSince } from '../core/telemetry/metrics';
import type { LockFailureReason } from './lock-not-acquired.error';

/** How an acquisition ended: the lock, or why not. */
export type LockOutcome = 'acquired' | LockFailureReason;

const OUTCOMES: readonly LockOutcome[] = ['acquired', 'contention', 'unavailable', 'replication', 'expired', 'shutdown'];

/**
 * The locks' metrics: acquisitions by outcome, the time callers waited, how long locks were held, extensions, and
 * losses (a lock gone while its work ran: the AbortSignal of `using()` fired).
 */
export class LockMetrics {
  private readonly acquisitions: CounterMetric;
  private readonly wait: HistogramMetric;
  private readonly hold: HistogramMetric;
  private readonly extensions: CounterMetric;
  private readonly losses: CounterMetric;
  private readonly byOutcome = Object.fromEntries(OUTCOMES.map((outcome) => [outcome, Object.freeze({ outcome })])) as unknown as Record<
    LockOutcome,
    MetricAttributes
  >;

  constructor(meter = libraryMeter()) {
    this.acquisitions = meter.counter(
      'redis_patterns.lock.acquisitions',
      'Lock acquisitions (tryAcquire, acquire, using, @WithLock), by outcome',
      '{acquisition}',
    );
    this.wait = meter.histogram(
      'redis_patterns.lock.wait.duration',
      'Time from asking for a lock to getting it or giving up, by outcome',
      's',
    );
    this.hold = meter.histogram('redis_patterns.lock.hold.duration', 'Time a lock was held, from acquisition to release or loss', 's');
    this.extensions = meter.counter('redis_patterns.lock.extensions', 'Successful lock extensions (explicit or by using())', '{extension}');
    this.losses = meter.counter('redis_patterns.lock.losses', 'Locks lost while their work ran (the AbortSignal fired)', '{loss}');
  }

  /** Records the end of one acquisition that began at `startedAt`. */
  acquisition(outcome: LockOutcome, startedAt: number): void {
    const attributes = this.byOutcome[outcome];
    this.acquisitions.add(1, attributes);
    this.wait.record(secondsSince(startedAt), attributes);
  }

  released(acquiredAt: number): void {
    this.hold.record(secondsSince(acquiredAt));
  }

  extended(): void {
    this.extensions.add(1);
  }

  lost(): void {
    this.losses.add(1);
  }
}
