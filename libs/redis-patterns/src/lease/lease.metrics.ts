import { type CounterMetric, type HistogramMetric, libraryMeter, type MetricAttributes, secondsSince } from '../core/telemetry/metrics';

/**
 * How an acquisition ended: the lease, or why not — `contention`, `unavailable`, `replication`, `expired`,
 * `shutdown` (the reasons of LockNotAcquiredError and PermitNotAcquiredError), or `refused` (Redis refused the
 * command, a configuration error).
 */
export type LeaseOutcome = 'acquired' | 'contention' | 'unavailable' | 'replication' | 'expired' | 'shutdown' | 'refused';

const OUTCOMES: readonly LeaseOutcome[] = ['acquired', 'contention', 'unavailable', 'replication', 'expired', 'shutdown', 'refused'];

/** What a {@link LeaseMetrics} counts: the instruments' name prefix and the words of their descriptions. */
export interface LeaseMetricsSubject {
  /** `redis_patterns.lock`: instruments are `<prefix>.acquisitions`, `<prefix>.wait.duration`, … */
  readonly prefix: string;
  /** The lease, singular and plural: `lock`, `locks`. */
  readonly one: string;
  readonly many: string;
  /** The calls that acquire one, for the acquisitions' description. */
  readonly calls: string;
}

/**
 * The metrics of one kind of lease (the locks', the semaphores': see its subject): acquisitions by outcome, the time
 * callers waited, how long leases were held, extensions, and losses (a lease gone while its work ran: the
 * AbortSignal of `using()` fired).
 */
export class LeaseMetrics {
  private readonly acquisitions: CounterMetric;
  private readonly wait: HistogramMetric;
  private readonly hold: HistogramMetric;
  private readonly extensions: CounterMetric;
  private readonly losses: CounterMetric;
  private readonly byOutcome = Object.fromEntries(OUTCOMES.map((outcome) => [outcome, Object.freeze({ outcome })])) as unknown as Record<
    LeaseOutcome,
    MetricAttributes
  >;

  constructor(subject: LeaseMetricsSubject, meter = libraryMeter()) {
    const { prefix, one, many, calls } = subject;
    this.acquisitions = meter.counter(`${prefix}.acquisitions`, `${capitalized(one)} acquisitions (${calls}), by outcome`, '{acquisition}');
    this.wait = meter.histogram(`${prefix}.wait.duration`, `Time from asking for a ${one} to getting it or giving up, by outcome`, 's');
    this.hold = meter.histogram(`${prefix}.hold.duration`, `Time a ${one} was held, from acquisition to release or loss`, 's');
    this.extensions = meter.counter(`${prefix}.extensions`, `Successful ${one} extensions (explicit or by using())`, '{extension}');
    this.losses = meter.counter(`${prefix}.losses`, `${capitalized(many)} lost while their work ran (the AbortSignal fired)`, '{loss}');
  }

  /** Records the end of one acquisition that began at `startedAt`. */
  acquisition(outcome: LeaseOutcome, startedAt: number): void {
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

function capitalized(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}
