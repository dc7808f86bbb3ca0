import type { LoggerService } from '@nestjs/common';
import { backoffDelayMs } from '../../lease/backoff';
import { LockNotAcquiredError } from '../../lease/lock-not-acquired.error';
import type { LockService } from '../../lock/lock.service';
import type { RawEntry } from '../../messaging/stream-replies';
import { idMs, newer } from './stream-id';
import type { WriteBehindSettings } from './write-behind.options';
import type { WriteBehindMetrics } from './write-behind.metrics';
import type { LibraryTracer } from '../../core/telemetry/tracing';
import type { ChangeRecord, WriteBehindStore } from './write-behind.store';

/** One change handed to a writer: the key's last written value since its previous flush. */
export interface WriteBehindChange<T = unknown> {
  /** The key given to `write`. */
  readonly key: string;
  /** The value written last (as the cache holds it). */
  readonly value: T;
  /**
   * The write's version (`<ms>-<seq>`, increasing per key): store it with the row and skip an upsert whose version
   * is not newer, and a redelivered batch (after an instance stopped mid-flush) changes nothing.
   */
  readonly version: string;
}

/**
 * Saves a batch of changes to the data source. Resolving settles them all; throwing retries the batch after
 * `writeBehind.retryDelayMs` (doubling per failure in a row, up to `maxRetryDelayMs`), and a change that failed `maxAttempts` times is dead-lettered.
 * `signal` aborts when this instance lost the partition's lease (another instance may flush the same changes).
 */
export type WriteBehindWriterFunction<T = unknown> = (
  changes: ReadonlyArray<WriteBehindChange<T>>,
  signal: AbortSignal,
) => Promise<void> | void;

/** Counters of one queue's flushes in this instance. */
export interface WriteBehindStats {
  /** Changes handed to the writer that it saved. */
  flushed: number;
  /** Writer calls that succeeded. */
  batches: number;
  /** Writer calls that threw (their changes are tried again). */
  retried: number;
  /** Changes moved to the dead-letter stream after `maxAttempts`. */
  deadLettered: number;
  /** Announcements given up because their write never landed (the writing process stopped between its two steps). */
  abandoned: number;
}

/** What a {@link QueueFlusher} needs from its service. */
export interface QueueFlusherContext {
  readonly store: WriteBehindStore;
  readonly locks: LockService;
  readonly settings: WriteBehindSettings;
  readonly logger: LoggerService;
  /** The stream key of partition `p`. */
  partition(p: number): string;
  readonly deadLetterStream: string;
  /** The change record key of a user key. */
  record(key: string): string;
  /** The value of an entry payload (undefined when it cannot be decoded). */
  decode(payload: string): Promise<unknown>;
  /** How long an announced write may take to land (see WriteBehindService). */
  readonly landingMs: number;
  readonly metrics: WriteBehindMetrics;
  readonly tracer: LibraryTracer;
}

/** The span of one writer call. */
const FLUSH_SPAN = 'redis_patterns.write_behind.flush';

/** A settled record keeps its version this long, so an older write landing late is refused. */
const KEEP_SETTLED_MS = 10 * 60_000;

/**
 * Flushes one queue from this instance: every `delayMs`, each partition whose lease it can take (one instance per
 * partition at a time, so a key's changes are applied in order) hands its oldest announcements to the writer,
 * coalesced per key, then settles the changes and removes the announcements. A partition whose writer fails waits
 * (retryDelayMs, doubling up to maxRetryDelayMs) and is tried again from the same place, so nothing after a failing change overtakes it.
 */
export class QueueFlusher {
  private timer?: NodeJS.Timeout;
  private running: Promise<unknown> = Promise.resolve();
  private stopped = true;
  private readonly counters: WriteBehindStats = { flushed: 0, batches: 0, retried: 0, deadLettered: 0, abandoned: 0 };
  /** Per partition: failed attempts in a row, and when it may be tried again (performance.now()). */
  private readonly backoff = new Map<number, { attempts: number; until: number }>();

  constructor(
    private readonly queue: string,
    private readonly writer: WriteBehindWriterFunction,
    private readonly ctx: QueueFlusherContext,
  ) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  stats(): WriteBehindStats {
    return { ...this.counters };
  }

  /**
   * Flushes until nothing is left that this instance can flush now (shutdown; bounded by the caller's deadline). A
   * partition whose writer is failing keeps its wait: retrying it in a loop would spend its attempts (and
   * dead-letter its changes) within the deadline; it is left to another instance or the next start.
   */
  async drain(): Promise<void> {
    this.stop();
    await this.running;
    // Each round flushes at most a batch per partition: go on while there is progress (bounded, should a lost lease
    // keep a round from removing what it settled).
    for (let rounds = 0; rounds < 10_000 && (await this.round()); rounds++);
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.round()
        .catch((error: unknown) => this.ctx.logger.warn?.(`Write-behind flush of "${this.queue}" failed: ${describe(error)}`))
        .finally(() => this.schedule());
    }, this.ctx.settings.delayMs);
    this.timer.unref();
  }

  /** One pass over the partitions; resolves whether any flushed or settled something. */
  private async round(): Promise<boolean> {
    let progressed = false;
    for (let p = 0; p < this.ctx.settings.partitions; p++) {
      const wait = this.backoff.get(p);
      if (wait && wait.until > performance.now()) continue;
      try {
        // An empty partition costs one XLEN, not a lease.
        if ((await this.ctx.store.length(this.ctx.partition(p))) === 0) continue;
        const flushed = await this.ctx.locks.using(`write-behind:${this.queue}:${p}`, (signal) => this.flushPartition(p, signal), {
          ttlMs: this.ctx.settings.leaseTtlMs,
        });
        progressed ||= flushed;
      } catch (error) {
        // Another instance flushes this partition now: it is theirs this round.
        if (error instanceof LockNotAcquiredError && error.reason === 'contention') continue;
        this.ctx.logger.warn?.(`Write-behind flush of "${this.queue}" partition ${p} failed: ${describe(error)}`);
      }
    }
    return progressed;
  }

  private async flushPartition(p: number, signal: AbortSignal): Promise<boolean> {
    const { store, settings } = this.ctx;
    const stream = this.ctx.partition(p);
    const entries = await store.head(stream, settings.batchSize);
    if (entries.length === 0) return false;
    const keys = [...new Set(entries.map(keyOf).filter((key): key is string => key !== undefined))];
    const records = new Map<string, ChangeRecord | undefined>();
    await Promise.all(keys.map(async (key) => records.set(key, await store.record(this.ctx.record(key)))));
    const settled: string[] = [];
    const changes = new Map<string, { key: string; payload: string; version: string }>();
    let nowMs: number | undefined;
    for (const entry of entries) {
      const key = keyOf(entry);
      const record = key === undefined ? undefined : records.get(key);
      if (key === undefined || record === undefined || newer(entry.id, record.version)) {
        // Its write has not landed: it is on its way (keep the order: stop here), or its writer stopped between the
        // two steps and it never will (given up once no write could land any more; the write was never acknowledged).
        nowMs ??= await store.timeMs();
        if (nowMs - idMs(entry.id) <= 2 * this.ctx.landingMs) break;
        this.counters.abandoned++;
        settled.push(entry.id);
        continue;
      }
      settled.push(entry.id);
      if (record.state === 'pending' && record.payload !== undefined && !changes.has(key))
        changes.set(key, { key, payload: record.payload, version: record.version });
    }
    if (changes.size > 0 && !(await this.write([...changes.values()], p, signal))) return true;
    // Lost the lease meanwhile: the next holder starts from these announcements again (a duplicate, never a loss).
    if (settled.length > 0 && !signal.aborted) await store.remove(stream, settled);
    return settled.length > 0;
  }

  // Hands the changes to the writer and settles them; false when the writer failed (the partition then waits).
  private async write(pending: Array<{ key: string; payload: string; version: string }>, p: number, signal: AbortSignal): Promise<boolean> {
    const { store } = this.ctx;
    const changes: WriteBehindChange[] = [];
    const undecodable: Array<{ key: string; payload: string; version: string }> = [];
    for (const change of pending) {
      const value = await this.ctx.decode(change.payload);
      if (value === undefined) undecodable.push(change);
      else changes.push({ key: change.key, value, version: change.version });
    }
    for (const change of undecodable) await this.deadLetter(change, 'its entry cannot be decoded (a codec this instance does not know)');
    const given = pending.filter((change) => !undecodable.includes(change));
    try {
      if (changes.length > 0) await this.traced(changes, p, signal);
    } catch (error) {
      this.counters.retried++;
      this.ctx.metrics.changed(this.queue, 'retried', given.length);
      const attempts = await Promise.all(given.map((change) => store.failed(this.ctx.record(change.key), change.version)));
      let exhausted = 0;
      for (const [i, change] of given.entries()) {
        if (attempts[i] < this.ctx.settings.maxAttempts) continue;
        exhausted++;
        await this.deadLetter(change, describe(error));
      }
      const streak = (this.backoff.get(p)?.attempts ?? 0) + 1;
      const { retryDelayMs, maxRetryDelayMs } = this.ctx.settings;
      const delay = backoffDelayMs(streak - 1, retryDelayMs, maxRetryDelayMs);
      this.backoff.set(p, { attempts: streak, until: performance.now() + delay });
      this.ctx.logger.warn?.(
        `Write-behind writer of "${this.queue}" failed on ${given.length} changes (${exhausted} dead-lettered); retried in ${delay} ms: ${describe(error)}`,
      );
      return false;
    }
    this.backoff.delete(p);
    this.counters.batches++;
    this.counters.flushed += changes.length;
    this.ctx.metrics.changed(this.queue, 'flushed', changes.length);
    if (changes.length > 0) {
      const oldest = Math.min(...changes.map((change) => idMs(change.version)));
      this.ctx.metrics.flushed(this.queue, (await store.timeMs()) - oldest);
    }
    await Promise.all(changes.map((change) => store.settle(this.ctx.record(change.key), change.version, 'flushed', KEEP_SETTLED_MS)));
    return true;
  }

  // With tracing live, each writer call runs in a span of its own (a flush starts its own trace: it serves the writes of
  // many requests, none of which is its parent).
  private traced(changes: WriteBehindChange[], p: number, signal: AbortSignal): Promise<void> {
    const { tracer } = this.ctx;
    if (!tracer.live) return Promise.resolve(this.writer(changes, signal));
    const attributes = {
      'redis_patterns.write_behind.queue': this.queue,
      'redis_patterns.write_behind.partition': p,
      'redis_patterns.write_behind.changes': changes.length,
    };
    return tracer.consume(FLUSH_SPAN, attributes, undefined, () => this.writer(changes, signal));
  }

  // Copy first, then settle: a failure in between leaves the change pending (dead-lettered twice, never lost).
  private async deadLetter(change: { key: string; payload: string; version: string }, error: string): Promise<void> {
    const { store, settings } = this.ctx;
    const fields = ['queue', this.queue, 'key', change.key, 'version', change.version, 'entry', change.payload, 'error', error];
    await store.deadLetter(this.ctx.deadLetterStream, fields, settings.deadLetterMaxLength);
    await store.settle(this.ctx.record(change.key), change.version, 'dead', KEEP_SETTLED_MS);
    this.counters.deadLettered++;
    this.ctx.metrics.changed(this.queue, 'dead_lettered', 1);
    this.ctx.logger.error?.(`Write-behind change of "${this.queue}" dead-lettered (${change.key}, version ${change.version}): ${error}`);
  }
}

function keyOf(entry: RawEntry): string | undefined {
  return entry.fields?.k;
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
