import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { type Observable, Subject } from 'rxjs';
import { MetricsCollector } from '../telemetry/metrics-collector';
import { emptyTotals, type LibraryTotals, readLibraryTotals } from './library-totals';
import { RingBuffer } from './ring-buffer';
import { accumulate, increaseBetween, sampleOf, type StatusSample } from './status-sample';

/** One sample a second, five minutes of them: what the charts span. */
export const SAMPLE_INTERVAL_MS = 1000;
export const HISTORY_SAMPLES = 300;

/**
 * Samples the library's OpenTelemetry metrics once a second (the same SDK reader GET /metrics serves) and keeps the
 * last five minutes of samples in memory, so a page opened late draws them at once. Also keeps the totals since
 * this app started, for the status cards: the SDK's counters are cumulative per process, not per app.
 */
@Injectable()
export class StatusHistory implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(StatusHistory.name);
  private readonly samples = new RingBuffer<StatusSample>(HISTORY_SAMPLES);
  private readonly sampled = new Subject<StatusSample>();
  private readonly totals = emptyTotals();
  private previous: { totals: LibraryTotals; at: number } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private sampling = false;
  private stopped = false;

  /** Each new sample, as it is taken; completes when the app shuts down (which ends the SSE responses). */
  readonly sampled$: Observable<StatusSample> = this.sampled.asObservable();

  constructor(private readonly collector: MetricsCollector) {}

  onModuleInit(): void {
    // The first collection is the baseline: counts from before this app (another app in the same process) are not
    // this app's. Every service is constructed by now, so the library's instruments exist.
    void this.sample();
    this.timer = setInterval(() => void this.sample(), SAMPLE_INTERVAL_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    this.stopped = true;
    clearInterval(this.timer);
    this.sampled.complete();
  }

  /** The samples of the last five minutes, oldest first. */
  history(): StatusSample[] {
    return this.samples.toArray();
  }

  /** Counts since this app started (counters) and the latest gauge readings. */
  sinceStart(): Readonly<LibraryTotals> {
    return this.totals;
  }

  private async sample(): Promise<void> {
    // A collection waits on Redis for the stream gauges (bounded by the library): never stack them up.
    if (this.sampling) return;
    this.sampling = true;
    try {
      const current = readLibraryTotals(await this.collector.collect());
      const at = Date.now();
      if (this.stopped) return;
      if (this.previous) {
        const added = increaseBetween(this.previous.totals, current);
        accumulate(this.totals, added);
        const sample = sampleOf(added, Math.max(at - this.previous.at, 1) / 1000, at);
        this.samples.push(sample);
        this.sampled.next(sample);
      }
      this.previous = { totals: current, at };
    } catch (error) {
      this.logger.warn(`Sampling the library metrics failed: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      this.sampling = false;
    }
  }
}
