import { StreamConsumerMetrics } from './messaging.metrics';
import { StreamConsumerTracing } from './messaging.tracing';
import type { LoggerService } from '@nestjs/common';
import { type BatchContext, type DeliveredEntry, describe, processBatch, type StreamConsumerStats } from './stream-batch';
import type { ResolvedConsumerSettings, StreamHandler } from './stream-consume-options';
import { idBefore, type RawEntry } from './stream-replies';
import type { GroupConsumer, StreamReader, StreamsStore } from './streams.store';
import { withDeadline } from '../core/time/with-deadline';

/** A running consumer, as returned by `StreamsService.consume`. */
export interface StreamConsumerHandle {
  /** The consumer name inside the group. */
  readonly consumer: string;
  /** Resolves once the consumer group exists and reading has begun (or the consumer was stopped first). */
  readonly ready: Promise<void>;
  /** Live counters. */
  readonly stats: Readonly<StreamConsumerStats>;
  /**
   * Stops reading, waits (up to `stopTimeoutMs`) for the handlers in flight and their acknowledgements, then
   * closes the consumer's connection. Idempotent.
   */
  stop(): Promise<void>;
}

export interface StreamConsumerDeps {
  readonly settings: ResolvedConsumerSettings;
  readonly handler: StreamHandler;
  /** Group creation, reclaims, delivery counts, acknowledgements and dead-letter writes. */
  readonly store: StreamsStore;
  /** This consumer's own reader (its reads block); closed when the consumer stops. */
  readonly reader: StreamReader;
  readonly keys: { source: string; deadLetter: string };
  readonly deadLetterMaxLength: number;
  readonly logger: LoggerService;
}

const RETRY_MIN_MS = 100;
const RETRY_MAX_MS = 5000;

/**
 * The consumer loop: create the group (idempotent), re-read this consumer's own pending entries, then alternate
 * XREADGROUP `>` (BLOCK, on the dedicated connection) with a periodic XAUTOCLAIM pass that takes over entries
 * idle longer than `claimIdleMs` — those of crashed peers, and this consumer's own failed ones (that is the
 * retry). Everything is sequential, so in-flight work is exactly one batch; redelivered entries go one at a time.
 */
export class StreamConsumerLoop implements StreamConsumerHandle {
  readonly stats: StreamConsumerStats = { processed: 0, failed: 0, deadLettered: 0, reclaimed: 0 };
  readonly ready: Promise<void>;
  private markReady!: () => void;
  private stopping = false;
  private reading = false;
  private stopping$?: Promise<void>;
  private markStopped!: () => void;
  /** Resolves once `stop()` has finished. */
  readonly stopped: Promise<void>;
  private done?: Promise<void>;
  private wake?: () => void;
  private nextReclaimAt = 0;
  private readonly writes = new Set<Promise<unknown>>();
  private readonly batch: BatchContext;
  private readonly reclaimIntervalMs: number;
  private readonly self: GroupConsumer;

  constructor(private readonly deps: StreamConsumerDeps) {
    const { group, consumer } = deps.settings;
    this.self = { key: deps.keys.source, group, consumer };
    this.ready = new Promise((resolve) => (this.markReady = resolve));
    this.stopped = new Promise((resolve) => (this.markStopped = resolve));
    this.reclaimIntervalMs = Math.max(20, Math.min(Math.floor(deps.settings.claimIdleMs / 2), 10_000));
    this.batch = {
      settings: deps.settings,
      store: deps.store,
      keys: deps.keys,
      deadLetterMaxLength: deps.deadLetterMaxLength,
      handler: deps.handler,
      stats: this.stats,
      metrics: new StreamConsumerMetrics(deps.settings.stream, deps.settings.group),
      tracing: new StreamConsumerTracing(deps.settings.stream, deps.settings.group),
      logger: deps.logger,
      track: (write) => {
        this.writes.add(write);
        void write.finally(() => this.writes.delete(write));
      },
    };
  }

  get consumer(): string {
    return this.deps.settings.consumer;
  }

  start(): this {
    this.done = this.run().catch((error: unknown) => {
      this.deps.logger.error(`Consumer ${this.describeSelf()} stopped on an unexpected error: ${describe(error)}`);
    });
    return this;
  }

  stop(): Promise<void> {
    this.stopping$ ??= this.shutdown().finally(this.markStopped);
    return this.stopping$;
  }

  private async shutdown(): Promise<void> {
    this.stopping = true;
    this.markReady();
    this.wake?.();
    // A read waiting for new entries would hold up the drain for as long as blockMs.
    if (this.reading) this.deps.reader.interrupt();
    const finished = await withDeadline(
      (this.done ?? Promise.resolve()).then(() => Promise.allSettled([...this.writes])).then(() => true),
      this.deps.settings.stopTimeoutMs,
      () => false,
    );
    if (!finished) {
      this.deps.logger.warn(
        `Consumer ${this.describeSelf()} still had handlers running after ${this.deps.settings.stopTimeoutMs} ms; their entries stay pending and will be reclaimed`,
      );
    }
    await this.deps.reader.close();
  }

  private async run(): Promise<void> {
    await this.retrying(() => this.ensureGroup());
    if (this.stopping) return;
    this.markReady();
    await this.retrying(() => this.recoverOwnPending());
    this.nextReclaimAt = Date.now() + this.reclaimIntervalMs;
    let failures = 0;
    while (!this.stopping) {
      try {
        if (Date.now() >= this.nextReclaimAt) {
          await this.reclaim();
          this.nextReclaimAt = Date.now() + this.reclaimIntervalMs;
        }
        const entries = await this.readNew();
        if (entries.length > 0) await processBatch(this.batch, entries);
        failures = 0;
      } catch (error) {
        if (this.stopping) break;
        if (/NOGROUP/.test(String((error as Error)?.message))) {
          // The stream or the group was deleted under us: recreate it and carry on.
          await this.retrying(() => this.ensureGroup());
          continue;
        }
        failures++;
        this.deps.logger.warn(`Consumer ${this.describeSelf()} failed to read (attempt ${failures}): ${describe(error)}`);
        await this.pause(Math.min(RETRY_MIN_MS * 2 ** (failures - 1), RETRY_MAX_MS));
      }
    }
  }

  private async ensureGroup(): Promise<void> {
    await this.deps.store.createGroup(this.self.key, this.self.group);
  }

  /**
   * Entries this consumer (by name) had read before a restart and never acknowledged: processed before new ones, one
   * at a time (see {@link redeliver}).
   */
  private async recoverOwnPending(): Promise<void> {
    let after = '0';
    while (!this.stopping) {
      const [entry] = await this.deps.reader.readGroup(this.self, { count: 1, after });
      if (!entry) return;
      await this.handleRedelivered(entry);
      after = entry.id;
    }
  }

  /**
   * One XAUTOCLAIM pass over the whole pending list, following the cursor to `0-0`. Entries are taken over with
   * JUSTID, which resets their idle time without counting a delivery, then redelivered one at a time.
   */
  private async reclaim(): Promise<void> {
    const { claimIdleMs, batchSize } = this.deps.settings;
    // An acknowledgement still on its way (of the last batch read with `>`) would let a re-read hand out an entry
    // that was already handled.
    await Promise.allSettled([...this.writes]);
    let cursor = '0-0';
    do {
      const claimed = await this.deps.store.autoClaim(this.self, { minIdleMs: claimIdleMs, cursor, count: batchSize });
      cursor = claimed.cursor;
      for (const id of claimed.ids) {
        if (this.stopping) return;
        await this.redeliver(id);
      }
    } while (cursor !== '0-0' && !this.stopping);
  }

  /**
   * Reads back one entry of this consumer's pending list (XREADGROUP from just before its id, COUNT 1: that counts a
   * delivery of this entry only) and handles it, acknowledged before the next one is read. Redelivered entries are
   * the suspects (their first consumer crashed, stalled or failed on them): were they re-read or claimed as a batch,
   * a handler that crashes its process would count a delivery against every entry of the batch, and entries that
   * merely sat behind a poison one would reach maxDeliveries with it and be dead-lettered without their handler
   * ever running.
   */
  private async redeliver(id: string): Promise<void> {
    // Answers `id` while it is still ours; if another consumer took it meanwhile, our next pending entry, which is
    // then handled as an (early) retry rather than left with a delivery counted and no handler run.
    const [entry] = await this.deps.reader.readGroup(this.self, { count: 1, after: idBefore(id) });
    if (entry) await this.handleRedelivered(entry);
  }

  private async handleRedelivered(entry: RawEntry): Promise<void> {
    this.stats.reclaimed++;
    this.batch.metrics.entry('reclaimed');
    await processBatch(this.batch, await this.withDeliveries([entry]), { awaitAck: true });
  }

  private async readNew(): Promise<DeliveredEntry[]> {
    if (this.stopping) return [];
    const { settings } = this.deps;
    // Wake up in time for the next reclaim pass even when no new entry arrives; BLOCK 0 would mean forever.
    const block = Math.max(1, Math.min(settings.blockMs, this.nextReclaimAt - Date.now()));
    this.reading = true;
    let entries: RawEntry[];
    try {
      entries = await this.deps.reader.readGroup(this.self, { count: settings.batchSize, after: '>', blockMs: block });
    } finally {
      this.reading = false;
    }
    // A first delivery: reading `>` sets the counter to 1, no round trip needed for it.
    return entries.map((entry) => ({ ...entry, deliveries: 1 }));
  }

  /** The delivery count of each entry comes from Redis (XPENDING), so crashes during handling count too. */
  private async withDeliveries(entries: RawEntry[]): Promise<DeliveredEntry[]> {
    const counts = await Promise.all(entries.map((entry) => this.deps.store.deliveries(this.self, entry.id)));
    // Not pending for us any more (acknowledged or claimed by someone else meanwhile): not ours to process.
    return entries.flatMap((entry, i) => {
      const deliveries = counts[i];
      return deliveries === undefined ? [] : [{ ...entry, deliveries }];
    });
  }

  /** Runs `step` until it succeeds or the consumer stops, backing off between failures. */
  private async retrying(step: () => Promise<void>): Promise<void> {
    for (let attempt = 1; !this.stopping; attempt++) {
      try {
        return await step();
      } catch (error) {
        if (this.stopping) return;
        this.deps.logger.warn(`Consumer ${this.describeSelf()}: ${describe(error)} (attempt ${attempt}, retrying)`);
        await this.pause(Math.min(RETRY_MIN_MS * 2 ** (attempt - 1), RETRY_MAX_MS));
      }
    }
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }

  private describeSelf(): string {
    const { stream, group, consumer } = this.deps.settings;
    return `"${consumer}" of group "${group}" on stream "${stream}"`;
  }
}
