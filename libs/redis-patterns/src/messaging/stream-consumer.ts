import type { LoggerService } from '@nestjs/common';
import type { RedisClient } from '../core/connections/redis-connections';
import { type BatchContext, type DeliveredEntry, describe, processBatch, type StreamConsumerStats } from './stream-batch';
import type { ResolvedConsumerSettings, StreamHandler } from './stream-consume-options';
import { deliveriesOfPendingReply, entriesOfReadReply, parseAutoClaimReply, type RawEntry } from './stream-replies';
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
  /** Request-path connection: XGROUP, XAUTOCLAIM, XPENDING, XACK, dead-letter writes. */
  readonly client: RedisClient;
  /** Dedicated connection used only for XREADGROUP (it blocks). */
  readonly reader: RedisClient;
  readonly closeReader: () => Promise<void>;
  readonly keys: { source: string; deadLetter: string };
  readonly deadLetterMaxLen: number;
  readonly logger: LoggerService;
}

const RETRY_MIN_MS = 100;
const RETRY_MAX_MS = 5000;

/**
 * The consumer loop: create the group (idempotent), re-read this consumer's own pending entries, then alternate
 * XREADGROUP `>` (BLOCK, on the dedicated connection) with a periodic XAUTOCLAIM pass that takes over entries
 * idle longer than `claimIdleMs` — those of crashed peers, and this consumer's own failed ones (that is the
 * retry). Everything is sequential, so in-flight work is exactly one batch.
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

  constructor(private readonly deps: StreamConsumerDeps) {
    this.ready = new Promise((resolve) => (this.markReady = resolve));
    this.stopped = new Promise((resolve) => (this.markStopped = resolve));
    this.reclaimIntervalMs = Math.max(20, Math.min(Math.floor(deps.settings.claimIdleMs / 2), 10_000));
    this.batch = {
      settings: deps.settings,
      client: deps.client,
      keys: deps.keys,
      deadLetterMaxLen: deps.deadLetterMaxLen,
      handler: deps.handler,
      stats: this.stats,
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
    // A blocked XREADGROUP has nothing in flight: dropping its socket ends the wait at once. Entries the server
    // handed out in that instant stay pending and are reclaimed (at-least-once).
    if (this.reading) this.deps.reader.disconnect();
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
    await this.deps.closeReader();
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
    const { source } = this.deps.keys;
    try {
      // From the start of the stream, so entries added before the first consumer ran are not skipped. MKSTREAM
      // creates an empty stream: a stream has no TTL and is bounded by MAXLEN instead (documented exception).
      await this.deps.client.call('XGROUP', 'CREATE', source, this.deps.settings.group, '0', 'MKSTREAM');
    } catch (error) {
      if (!/BUSYGROUP/.test(String((error as Error)?.message))) throw error;
    }
  }

  /** Entries this consumer (by name) had read before a restart and never acknowledged: processed before new ones. */
  private async recoverOwnPending(): Promise<void> {
    const { settings } = this.deps;
    let after = '0';
    while (!this.stopping) {
      const reply = await this.deps.reader.call(
        'XREADGROUP',
        'GROUP',
        settings.group,
        settings.consumer,
        'COUNT',
        settings.batchSize,
        'STREAMS',
        this.deps.keys.source,
        after,
      );
      const entries = entriesOfReadReply(reply);
      if (entries.length === 0) return;
      this.stats.reclaimed += entries.length;
      await processBatch(this.batch, await this.withDeliveries(entries));
      after = entries[entries.length - 1].id;
    }
  }

  /** One XAUTOCLAIM pass over the whole pending list, following the cursor to `0-0`. */
  private async reclaim(): Promise<void> {
    const { settings, keys } = this.deps;
    let cursor = '0-0';
    do {
      const reply = await this.deps.client.call(
        'XAUTOCLAIM',
        keys.source,
        settings.group,
        settings.consumer,
        settings.claimIdleMs,
        cursor,
        'COUNT',
        settings.batchSize,
      );
      const claimed = parseAutoClaimReply(reply);
      cursor = claimed.cursor;
      if (claimed.entries.length > 0) {
        this.stats.reclaimed += claimed.entries.length;
        await processBatch(this.batch, await this.withDeliveries(claimed.entries));
      }
    } while (cursor !== '0-0' && !this.stopping);
  }

  private async readNew(): Promise<DeliveredEntry[]> {
    if (this.stopping) return [];
    const { settings } = this.deps;
    // Wake up in time for the next reclaim pass even when no new entry arrives; BLOCK 0 would mean forever.
    const block = Math.max(1, Math.min(settings.blockMs, this.nextReclaimAt - Date.now()));
    this.reading = true;
    let reply: unknown;
    try {
      reply = await this.deps.reader.call(
        'XREADGROUP',
        'GROUP',
        settings.group,
        settings.consumer,
        'COUNT',
        settings.batchSize,
        'BLOCK',
        block,
        'STREAMS',
        this.deps.keys.source,
        '>',
      );
    } finally {
      this.reading = false;
    }
    // A first delivery: XREADGROUP `>` sets the counter to 1, no XPENDING round trip needed.
    return entriesOfReadReply(reply).map((entry) => ({ ...entry, deliveries: 1 }));
  }

  /** The delivery count of each entry comes from Redis (XPENDING), so crashes during handling count too. */
  private async withDeliveries(entries: RawEntry[]): Promise<DeliveredEntry[]> {
    const { settings, keys, client } = this.deps;
    const replies = await Promise.all(
      entries.map((entry) => client.call('XPENDING', keys.source, settings.group, entry.id, entry.id, 1, settings.consumer)),
    );
    const delivered: DeliveredEntry[] = [];
    entries.forEach((entry, i) => {
      const count = deliveriesOfPendingReply(replies[i]).get(entry.id);
      // Not pending for us any more (acknowledged or claimed by someone else meanwhile): not ours to process.
      if (count !== undefined) delivered.push({ ...entry, deliveries: count });
    });
    return delivered;
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
