import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type LoggerService,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { KeyBuilder } from '../../core/keys/key-builder';
import { withDeadline } from '../../core/time/with-deadline';
import { InvalidArgumentError } from '../../errors/invalid-argument.error';
import { LockService } from '../../lock/lock.service';
import { RESOLVED_OPTIONS } from '../../redis-patterns.constants';
import type { ResolvedRedisPatternsOptions } from '../../redis-patterns.options';
import { CacheRuntime } from '../cache.runtime';
import { buildPolicy, checkKey } from '../engine/entry-policy';
import { libraryTracer } from '../../core/telemetry/tracing';
import { WriteBehindMetrics } from './write-behind.metrics';
import { QueueFlusher, type WriteBehindStats, type WriteBehindWriterFunction } from './queue-flusher';
import { WRITE_BEHIND_SETTINGS, type WriteBehindSettings } from './write-behind.options';
import { WRITE_BEHIND_STORE, type WriteBehindStore } from './write-behind.store';

export type { WriteBehindChange, WriteBehindStats, WriteBehindWriterFunction } from './queue-flusher';

/**
 * How long an announced write may take to land: past it the write is refused (nothing written, the call rejects)
 * and the flusher may give its announcement up. Far above a command deadline, so only a process paused between its
 * two steps meets it.
 */
const LANDING_MS = 10_000;

/** A change the writer kept failing on, as {@link WriteBehindService.deadLetters} returns it. */
export interface WriteBehindDeadLetter {
  /** Its id in the dead-letter stream. */
  readonly id: string;
  /** The key given to `write`. */
  readonly key: string;
  /** The change's version. */
  readonly version: string;
  /** The value written (undefined when its entry cannot be decoded here). */
  readonly value: unknown;
  /** The writer's last error, as `Name: message`. */
  readonly error: string;
}

/** Options of one {@link WriteBehindService.write}. */
export interface WriteBehindWriteOptions {
  /** TTL of the cache entry, in ms (default `cache.defaultTtlMs`). Keep it well above `writeBehind.delayMs`. */
  ttlMs?: number;
}

/**
 * Write-behind caching: a write updates the cache at once and reaches the data source later, in batches, through the
 * writer registered for its queue (`@WriteBehindWriter(queue)` or {@link WriteBehindService.registerWriter}).
 *
 * - Nothing acknowledged is lost: `write` resolves once the change is recorded in Redis (as durable as the server's
 *   persistence; use AOF), and a change leaves Redis only once its writer succeeded or, after `maxAttempts`, it is
 *   dead-lettered with its value and error.
 * - Reads see the write at once: through `CacheService.get`, `@Cacheable` (same key), or {@link WriteBehindService.get}.
 * - Coalescing and order: writes to one key between two flushes reach the writer as the last one, with its
 *   `version` (increasing per key); a key's changes are flushed by one instance at a time, in order.
 * - The work is shared: each queue is split into `writeBehind.partitions` streams, each flushed under a lease by
 *   whichever instance holds it; an instance that stops mid-flush loses its lease and another takes over.
 *
 * @example
 * await writeBehind.write('orders', `order:${order.id}`, order);
 * // elsewhere, in one instance or many:
 * \@WriteBehindWriter('orders')
 * async save(changes: WriteBehindChange<Order>[]) { await db.upsertOrders(changes); }
 */
@Injectable()
export class WriteBehindService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly flushers = new Map<string, QueueFlusher>();
  private readonly logger: LoggerService;
  private bootstrapped = false;
  private readonly metrics = new WriteBehindMetrics(() =>
    Promise.all([...this.flushers.keys()].map(async (queue) => ({ queue, pending: await this.pending(queue) }))),
  );
  private readonly tracer = libraryTracer();

  /** Created by the module's dependency injection; not part of the public API. @internal */
  constructor(
    private readonly runtime: CacheRuntime,
    private readonly keys: KeyBuilder,
    private readonly locks: LockService,
    @Inject(WRITE_BEHIND_SETTINGS) private readonly settings: WriteBehindSettings,
    @Inject(WRITE_BEHIND_STORE) private readonly store: WriteBehindStore,
    @Inject(RESOLVED_OPTIONS) private readonly options: ResolvedRedisPatternsOptions,
  ) {
    this.logger = options.logger ?? new Logger('RedisPatterns:WriteBehind');
  }

  /**
   * Writes `value` to the cache under `key` and records the change for `queue`'s writer, in one atomic step.
   * Resolves once both are in Redis; rejects (nothing written) when Redis does not answer or the write could not
   * land in time. A later write of the same key replaces this one before its flush.
   */
  async write(queue: string, key: string, value: unknown, options: WriteBehindWriteOptions = {}): Promise<void> {
    checkQueue(queue);
    const store = this.store;
    const user = checkKey(key);
    if (value === undefined) throw new InvalidArgumentError('value', 'expected a value (undefined is never cached)');
    const policy = buildPolicy(options.ttlMs === undefined ? undefined : { ttlMs: options.ttlMs }, this.runtime.defaults, 'options');
    const engine = this.runtime.engine;
    const payload = await engine.entries.encode(value, policy, 0);
    const entry = this.runtime.keys.entry(user);
    // Announce first: a process that dies before the second step leaves an announcement without a change (the
    // flusher drops it once LANDING_MS has passed), never a change without an announcement.
    const version = await store.announce(this.partitionOf(queue, user), user);
    engine.store.onChange?.(entry);
    try {
      const written = await store.write(
        entry,
        this.recordOf(entry),
        payload,
        policy.ttlMs + policy.staleMs + policy.graceMs,
        version,
        LANDING_MS,
      );
      if (written === -1)
        throw new Error(`The write-behind write of queue "${queue}" took over ${LANDING_MS} ms to land; nothing was written.`);
    } finally {
      engine.store.onChange?.(entry);
    }
  }

  /**
   * The latest written value of `key`: the cache entry, or while it is missing (expired before the flush), the
   * pending change. Undefined when neither exists.
   */
  async get<T = unknown>(key: string): Promise<T | undefined> {
    const user = checkKey(key);
    const entry = this.runtime.keys.entry(user);
    const engine = this.runtime.engine;
    const found = await engine.read(entry, false);
    if (found !== undefined) return found.value as T;
    const record = await this.store.record(this.recordOf(entry));
    if (record?.payload === undefined) return undefined;
    const decoded = await engine.entries.decode(record.payload);
    return decoded?.value as T | undefined;
  }

  /**
   * Registers the writer of `queue` in this instance: its changes are flushed here too (each partition by one
   * instance at a time). One writer per queue and instance.
   */
  registerWriter<T = unknown>(queue: string, writer: WriteBehindWriterFunction<T>): void {
    checkQueue(queue);
    if (typeof writer !== 'function') throw new InvalidArgumentError('writer', 'expected a function (changes) => Promise<void>');
    if (this.flushers.has(queue)) throw new InvalidArgumentError('queue', `a writer is already registered for "${queue}"`);
    const flusher = new QueueFlusher(queue, writer as WriteBehindWriterFunction, {
      store: this.store,
      locks: this.locks,
      settings: this.settings,
      logger: this.logger,
      partition: (p) => this.partitionKey(queue, p),
      deadLetterStream: this.keys.key('write-behind-dlq', queue),
      record: (key) => this.recordOf(this.runtime.keys.entry(key)),
      decode: async (payload) => (await this.runtime.engine.entries.decode(payload))?.value,
      landingMs: LANDING_MS,
      metrics: this.metrics,
      tracer: this.tracer,
    });
    this.flushers.set(queue, flusher);
    if (this.bootstrapped) flusher.start();
  }

  /** Counters of this instance's flushes, per queue. */
  stats(queue: string): WriteBehindStats | undefined {
    return this.flushers.get(queue)?.stats();
  }

  /**
   * The oldest `count` (default 100) changes of `queue` that were dead-lettered after `maxAttempts` failed attempts,
   * with the value written and the writer's last error. They stay in the dead-letter stream
   * (`<prefix>:write-behind-dlq:<queue>`, capped at `deadLetterMaxLength`) for an operator to replay or discard.
   */
  async deadLetters(queue: string, count = 100): Promise<WriteBehindDeadLetter[]> {
    checkQueue(queue);
    const engine = this.runtime.engine;
    const letters = await this.store.letters(this.keys.key('write-behind-dlq', queue), count);
    return Promise.all(
      letters.map(async ({ id, fields }) => ({
        id,
        key: fields?.key ?? '',
        version: fields?.version ?? '',
        value: fields?.entry === undefined ? undefined : (await engine.entries.decode(fields.entry))?.value,
        error: fields?.error ?? '',
      })),
    );
  }

  /** The changes of `queue` not yet settled (flushed or dead-lettered), over every partition. */
  async pending(queue: string): Promise<number> {
    checkQueue(queue);
    const store = this.store;
    const lengths = await Promise.all(
      Array.from({ length: this.settings.partitions }, (_, p) => store.length(this.partitionKey(queue, p))),
    );
    return lengths.reduce((sum, n) => sum + n, 0);
  }

  /** Starts the flushers of the writers registered before bootstrap (Nest calls it). */
  onApplicationBootstrap(): void {
    this.bootstrapped = true;
    for (const flusher of this.flushers.values()) flusher.start();
  }

  /** Flushes what is pending (within `shutdownTimeoutMs`) before the connections close. */
  async beforeApplicationShutdown(): Promise<void> {
    const flushers = [...this.flushers.values()];
    await withDeadline(Promise.all(flushers.map((flusher) => flusher.drain())), this.options.shutdownTimeoutMs, () => undefined);
    for (const flusher of flushers) flusher.stop();
    this.metrics.close();
  }

  private recordOf(entry: string): string {
    return this.keys.member(entry, 'wb');
  }

  private partitionOf(queue: string, key: string): string {
    return this.partitionKey(queue, fnv1a(key) % this.settings.partitions);
  }

  private partitionKey(queue: string, partition: number): string {
    // The partition number is inside the hash tag: partitions spread over a cluster's slots.
    return this.keys.slotGroup('write-behind', queue, String(partition));
  }
}

function checkQueue(queue: unknown): void {
  if (typeof queue !== 'string' || queue.length === 0 || queue.length > 200)
    throw new InvalidArgumentError('queue', 'expected a non-empty queue name of at most 200 characters');
}

/** 32-bit FNV-1a of a string's UTF-16 units: which partition a key belongs to, the same in every instance. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}
