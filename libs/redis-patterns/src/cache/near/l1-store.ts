import type { NearCacheSettings } from './near-cache.options';

/** Counters and gauges of the near cache (L1), as returned by `CacheService.nearStats()`. */
export interface NearCacheStats {
  /** Whether the invalidation connections are subscribed, so L1 is being read and filled. */
  live: boolean;
  /** Entries held now. */
  entries: number;
  /**
   * Estimated bytes of heap held now: per entry, the UTF-16 size of its key and of its value's decoded text (after
   * decompression: what the held value was parsed from), plus a fixed overhead.
   */
  bytes: number;
  /** Reads answered from L1 without Redis. */
  hits: number;
  /** Reads that went to Redis (L1 had nothing usable). */
  misses: number;
  /** Entries dropped to stay within `maxEntries` / `maxBytes` (least recently used first). */
  evictions: number;
  /** Entries dropped because their TTL (never longer than the Redis TTL) ended. */
  expirations: number;
  /** Entries dropped by an invalidation (a write, delete or tag invalidation here or on another instance). */
  invalidations: number;
  /** Whole-L1 clears: the invalidation connection dropped or reconnected, the topology changed, or Redis flushed. */
  clears: number;
  /** Values read from Redis but not kept because an invalidation of their key arrived while the read was in flight. */
  discardedFills: number;
}

interface Slot {
  /** The decoded (deep-frozen) value, shared by every hit. */
  readonly value: unknown;
  /** `performance.now()` deadline: never later than the key's expiry in Redis (see NearCache.read). */
  readonly expiresAt: number;
  /**
   * The same deadline on the wall clock (`Date.now()`). Redis expires keys by its wall clock, so a forward step of
   * that clock (a time sync on the Redis host, seen here when it is the same machine) shortens the key's life while
   * the monotonic clock runs on; a backward step lengthens neither, as the monotonic deadline still holds.
   */
  readonly wallExpiresAt: number;
  readonly bytes: number;
  /** Read since it was last passed over by eviction (the CLOCK reference bit). */
  used: boolean;
}

/** Approximate heap cost of an entry beyond its strings (Map slot, object, numbers). */
const ENTRY_OVERHEAD_BYTES = 96;

/**
 * The in-process store behind the near cache: decoded values (deep-frozen by the caller, shared by every hit),
 * bounded by entries and bytes — counted from the decoded value's size, never the stored (possibly compressed) one,
 * which can be a small fraction of the heap the value takes — with least-recently-used eviction approximated
 * by CLOCK (second chance): a hit only sets the slot's `used` bit; eviction walks the Map from its oldest insertion,
 * moves a used slot to the end with its bit cleared, and drops the first unused one. Moving the entry on every hit
 * (delete + set) was a fifth of the CPU of an L1 hit.
 *
 * It also closes the classic client-side-caching race: a read sent to Redis before a write and answered after the
 * write's invalidation must not be stored. {@link L1Store.begin} notes the key as in flight; an invalidation of an
 * in-flight key (or a clear) marks it, and {@link L1Store.commit} then discards the value.
 */
export class L1Store {
  private readonly slots = new Map<string, Slot>();
  private bytes = 0;
  /** In-flight reads per key, and the invalidation sequence number at which an in-flight key was last touched. */
  private readonly inFlight = new Map<string, { readers: number; touchedAt: number }>();
  /** A logical clock: every begin, invalidation of an in-flight key and clear takes the next value. */
  private seq = 0;
  private clearedAt = -1;
  readonly stats: Omit<NearCacheStats, 'live' | 'entries' | 'bytes'> = {
    hits: 0,
    misses: 0,
    evictions: 0,
    expirations: 0,
    invalidations: 0,
    clears: 0,
    discardedFills: 0,
  };

  constructor(private readonly settings: NearCacheSettings) {}

  get size(): number {
    return this.slots.size;
  }

  get byteSize(): number {
    return this.bytes;
  }

  /**
   * The slot if held and not expired by either clock (and marks it recently used), else undefined.
   * @param now `performance.now()`
   * @param wallNow `Date.now()`
   */
  get(key: string, now: number, wallNow: number): { readonly value: unknown } | undefined {
    const slot = this.slots.get(key);
    if (slot === undefined) return undefined;
    if (slot.expiresAt <= now || slot.wallExpiresAt <= wallNow) {
      this.remove(key, slot);
      this.stats.expirations++;
      return undefined;
    }
    slot.used = true;
    return slot;
  }

  /** Starts a read from Redis of `key`; pass the ticket to {@link L1Store.commit} or {@link L1Store.abandon}. */
  begin(key: string): number {
    const flight = this.inFlight.get(key);
    if (flight) flight.readers++;
    else this.inFlight.set(key, { readers: 1, touchedAt: -1 });
    return this.seq++;
  }

  /**
   * Stores what the read found, unless the key was invalidated (or L1 cleared) since {@link L1Store.begin}.
   * `valueBytes` is the estimated heap of the decoded value (see DecodedEntry.decodedBytes).
   */
  commit(key: string, ticket: number, valueBytes: number, value: unknown, expiresAt: number, wallExpiresAt: number): void {
    const flight = this.finish(key);
    if (this.clearedAt > ticket || (flight !== undefined && flight.touchedAt > ticket)) {
      this.stats.discardedFills++;
      return;
    }
    const bytes = key.length * 2 + valueBytes + ENTRY_OVERHEAD_BYTES;
    if (bytes > this.settings.maxBytes) return;
    const previous = this.slots.get(key);
    if (previous) this.remove(key, previous);
    this.slots.set(key, { value, expiresAt, wallExpiresAt, bytes, used: false });
    this.bytes += bytes;
    this.evictOverflow();
  }

  /** Ends a read that stores nothing. */
  abandon(key: string): void {
    this.finish(key);
  }

  /** Drops a key (a write or invalidation) and fails any read of it in flight. */
  invalidate(key: string): void {
    const slot = this.slots.get(key);
    if (slot) {
      this.remove(key, slot);
      this.stats.invalidations++;
    }
    const flight = this.inFlight.get(key);
    if (flight) flight.touchedAt = this.seq++;
  }

  /** Drops everything and fails every read in flight (a missed invalidation could hide behind any of them). */
  clear(): void {
    this.slots.clear();
    this.bytes = 0;
    this.clearedAt = this.seq++;
    this.stats.clears++;
  }

  private finish(key: string): { touchedAt: number } | undefined {
    const flight = this.inFlight.get(key);
    if (flight && --flight.readers === 0) this.inFlight.delete(key);
    return flight;
  }

  private remove(key: string, slot: Slot): void {
    this.slots.delete(key);
    this.bytes -= slot.bytes;
  }

  private evictOverflow(): void {
    while (this.slots.size > this.settings.maxEntries || this.bytes > this.settings.maxBytes) {
      const oldest = this.slots.entries().next();
      if (oldest.done) return;
      const [key, slot] = oldest.value;
      if (slot.used) {
        // Second chance: read since the last pass, so not the least recently used; every pass clears a bit, so
        // the walk ends within one round of the Map.
        slot.used = false;
        this.slots.delete(key);
        this.slots.set(key, slot);
        continue;
      }
      this.remove(key, slot);
      this.stats.evictions++;
    }
  }
}
