import type { MemoryKeyspace } from '../../core/memory/memory-keyspace';
import { type CacheStore, type ChangeWatch, type FillLockMode, type FillLockReply, isEntryKey, type TakenTag } from '../cache.store';
import type { CacheKeys } from '../engine/cache-keys';
import type { InvalidationSink } from '../near/invalidation-listener';
import { TAG_PRUNE_MAX } from '../scripts/tag-register.script';
import { MemoryTagIndex } from './memory-tag-index';

/** The marker `del` leaves on the fill lock (see the fill-lock and write scripts). */
const DEL_MARKER = '~';

/**
 * The stale and grace windows of an entry, from its header `<layout>:<flags>:<staleMs>[g<graceMs>]:` (as the
 * fill-lock script reads it).
 */
const WINDOWS_HEADER = /^\d:[A-Za-z]*:(\d+)g?(\d*):/;

/**
 * The cache in memory (`connection: 'memory://'`), for unit tests: the same keys, TTLs and replies as
 * RedisCacheStore, each method doing in one synchronous step what its Lua script does atomically, so the fill
 * lock, del's `~` marker and the tag epochs and tombstones keep their rules (a load overtaken by a delete or a tag
 * invalidation is not written back). Values are the payload strings; tag member indexes are MemoryTagIndex (each
 * member's expiry, pruned as keys register, as the Redis sorted set is), tombstones Maps (tag → epoch), epochs
 * numbers.
 *
 * What differs from Redis: everything lives in this process. Another instance (another application, even in the
 * same process) shares nothing, so the fill lock only ever competes with this module's own callers, and nothing
 * written outside this store (no other client exists) can change an entry. The near cache's change watch is live at
 * once and hears of this store's own writes and deletes, synchronously; expiry is lazy (see MemoryKeyspace), and an
 * expired entry sends no invalidation, which L1 does not need as it never outlives an entry's fresh TTL.
 */
export class MemoryCacheStore implements CacheStore {
  onChange?: (entry: string) => void;
  private readonly sinks = new Set<InvalidationSink>();

  constructor(
    private readonly keyspace: MemoryKeyspace,
    private readonly keys: CacheKeys,
  ) {}

  get(entry: string): Promise<string | null> {
    return settle(() => this.read(entry));
  }

  pttl(entry: string): Promise<number> {
    return settle(() => this.keyspace.pttl(entry));
  }

  getMany(entries: readonly string[]): Promise<Array<string | null>> {
    return settle(() => entries.map((entry) => this.read(entry)));
  }

  fillLock(entry: string, token: string, lockTtlMs: number, mode: FillLockMode): Promise<FillLockReply> {
    return settle((): FillLockReply => {
      const lock = this.keys.lock(entry);
      const holder = this.keyspace.get<string>(lock);
      const free = holder === undefined || holder === DEL_MARKER;
      const raw = mode === 'entry' || (mode === 'after-holder' && free) ? this.read(entry) : null;
      if (raw !== null) {
        const pttl = this.keyspace.pttl(entry);
        const windows = WINDOWS_HEADER.exec(raw);
        const tailMs = Number(windows?.[1] ?? 0) + Number(windows?.[2] || 0);
        // An entry inside its stale or grace window is not served here: the caller is about to refresh it.
        if (pttl < 0 || pttl > tailMs) return { kind: 'entry', raw };
      }
      if (free) {
        this.keyspace.set(lock, token, lockTtlMs);
        return { kind: 'locked' };
      }
      return { kind: 'busy', lockPttl: this.keyspace.pttl(lock) };
    });
  }

  releaseLock(entry: string, token: string): Promise<number> {
    return settle(() => (this.releaseIfHeld(entry, token) ? 1 : 0));
  }

  setPlain(entry: string, payload: string, px: number): Promise<boolean> {
    return this.changing(entry, () => {
      this.keyspace.set(entry, payload, px);
      return true;
    });
  }

  writeChecked(entry: string, payload: string, px: number, token: string, tagEpochs: ReadonlyArray<string | number>): Promise<boolean> {
    return this.changing(entry, () => {
      // A lock taken by someone else, or replaced by del's marker, means the loaded value may predate a change; a
      // lock that merely expired does not stop the write (slow loaders must still be cacheable).
      if (token !== '') {
        const holder = this.keyspace.get<string>(this.keys.lock(entry));
        if (holder !== undefined && holder !== token) return false;
      }
      const tombstones = this.keyspace.get<Map<string, number>>(this.keys.tombstone(entry));
      if (tombstones) {
        for (let i = 0; i + 1 < tagEpochs.length; i += 2) {
          const dead = tombstones.get(String(tagEpochs[i]));
          // An invalidation newer than the epoch this write registered under took the entry: refuse.
          if (dead !== undefined && dead > Number(tagEpochs[i + 1])) {
            if (token !== '') this.releaseIfHeld(entry, token);
            return false;
          }
        }
      }
      this.keyspace.set(entry, payload, px);
      if (token !== '') this.releaseIfHeld(entry, token);
      return true;
    });
  }

  tagEpochs(tags: readonly string[]): Promise<number[]> {
    return settle(() => tags.map((tag) => this.epochOf(tag)));
  }

  registerTag(tag: string, entry: string, px: number, expectedEpoch: number | undefined): Promise<number> {
    return settle(() => {
      const epoch = this.epochOf(tag);
      // The loaded value may predate an invalidation that ran during the load: register nothing.
      if (expectedEpoch !== undefined && epoch !== expectedEpoch) return -1;
      const indexKey = this.keys.tagIndex(tag);
      const now = this.keyspace.now();
      const index = this.keyspace.get<MemoryTagIndex>(indexKey);
      if (index) {
        index.prune(now, TAG_PRUNE_MAX);
        index.add(entry, now + px);
        this.stretch(indexKey, px);
      } else {
        const created = new MemoryTagIndex();
        created.add(entry, now + px);
        this.keyspace.set(indexKey, created, px);
      }
      // The epoch must outlive every member registered under it, or a late write would see epoch 0 again.
      if (epoch > 0) this.stretch(this.keys.tagEpoch(tag), px);
      return epoch;
    });
  }

  invalidateTag(tag: string, minEpochTtlMs: number): Promise<TakenTag> {
    return settle((): TakenTag => {
      const indexKey = this.keys.tagIndex(tag);
      const epochKey = this.keys.tagEpoch(tag);
      const epoch = this.epochOf(tag) + 1;
      // Expired members have no entry left to delete, nor a write still to land: only the live ones are taken.
      const members = this.keyspace.get<MemoryTagIndex>(indexKey)?.live(this.keyspace.now()) ?? [];
      // The index's TTL bounds every member's: tombstones living that long outlast any write registered under it.
      const ttlMs = Math.max(this.keyspace.pttl(indexKey), minEpochTtlMs);
      this.keyspace.delete(indexKey);
      if (this.keyspace.update(epochKey, epoch)) this.stretch(epochKey, ttlMs);
      else this.keyspace.set(epochKey, epoch, ttlMs);
      return { epoch, ttlMs, members };
    });
  }

  invalidateEntry(entry: string, tag: string, epoch: number, ttlMs: number): Promise<boolean> {
    return this.changing(entry, () => {
      const removed = this.keyspace.delete(entry) === 1;
      const tombstoneKey = this.keys.tombstone(entry);
      const tombstones = this.keyspace.get<Map<string, number>>(tombstoneKey);
      if (tombstones) {
        if ((tombstones.get(tag) ?? 0) < epoch) tombstones.set(tag, epoch);
        this.stretch(tombstoneKey, ttlMs);
      } else {
        this.keyspace.set(tombstoneKey, new Map([[tag, epoch]]), ttlMs);
      }
      return removed;
    });
  }

  /** Marker first, then the delete: a fill loading meanwhile finds its lock gone to `~` and does not write back. */
  del(entry: string, lockTtlMs: number): Promise<boolean> {
    return this.changing(entry, () => {
      this.keyspace.set(this.keys.lock(entry), DEL_MARKER, lockTtlMs);
      return this.keyspace.delete(entry) === 1;
    });
  }

  async *entriesUnder(prefix: string, count: number): AsyncIterable<string[]> {
    const entries = this.keyspace.keys(prefix).filter(isEntryKey);
    for (let i = 0; i < entries.length; i += count) yield entries.slice(i, i + count);
  }

  /** Live at once: no connection to wait for, and no writer but this store to hear of. */
  watchChanges(sink: InvalidationSink): ChangeWatch {
    const { sinks } = this;
    return {
      start(): Promise<void> {
        sinks.add(sink);
        sink.setLive(true);
        return Promise.resolve();
      },
      stop(): Promise<void> {
        sinks.delete(sink);
        sink.setLive(false);
        return Promise.resolve();
      },
      connections: () => [],
    };
  }

  /** Memory always answers. */
  outageFor(): undefined {
    return undefined;
  }

  private read(entry: string): string | null {
    return this.keyspace.get<string>(entry) ?? null;
  }

  private epochOf(tag: string): number {
    return this.keyspace.get<number>(this.keys.tagEpoch(tag)) ?? 0;
  }

  /** PEXPIRE only when longer than what the key has left, as the scripts do: a TTL here never shrinks. */
  private stretch(key: string, ttlMs: number): void {
    if (this.keyspace.pttl(key) < ttlMs) this.keyspace.expire(key, ttlMs);
  }

  /** Compare-and-delete of the fill lock. */
  private releaseIfHeld(entry: string, token: string): boolean {
    const lock = this.keys.lock(entry);
    return this.keyspace.get<string>(lock) === token && this.keyspace.delete(lock) === 1;
  }

  /** As RedisCacheStore.changing, and the change watch hears of it as Redis's tracking would tell it. */
  private changing<T>(entry: string, write: () => T): Promise<T> {
    this.onChange?.(entry);
    try {
      return settle(write);
    } finally {
      this.onChange?.(entry);
      for (const sink of this.sinks) sink.invalidate([entry]);
    }
  }
}

/** Runs a step now (its effects ordered as the calls were, like commands on one connection) and answers later. */
function settle<T>(step: () => T): Promise<T> {
  try {
    return Promise.resolve(step());
  } catch (error) {
    return Promise.reject(error);
  }
}
