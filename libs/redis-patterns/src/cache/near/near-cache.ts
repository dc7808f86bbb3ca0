import type { FoundEntry } from '../engine/cache-entry';
import type { CacheHealth } from '../engine/cache-health';
import type { CacheStore, ChangeWatch } from '../cache.store';
import { deepFreeze } from './deep-freeze';
import type { InvalidationSink } from './invalidation-listener';
import { L1Store, type NearCacheStats } from './l1-store';
import type { NearCacheSettings } from './near-cache.options';

/** Returned by {@link NearCache.get} when L1 cannot answer. */
export const NEAR_MISS: unique symbol = Symbol('near-cache miss');

/** What the near cache needs of the cache engine to read through to Redis. */
export interface NearReadContext {
  readonly store: CacheStore;
  readonly health: CacheHealth;
  interpret(entry: string, raw: string, pttl?: number): FoundEntry | undefined | Promise<FoundEntry | undefined>;
  read(entry: string, withTtl: boolean): Promise<FoundEntry | undefined>;
}

/**
 * The near cache: an in-process L1 ({@link L1Store}) in front of Redis, kept coherent by Redis itself
 * ({@link InvalidationListener}). A hit costs no round trip. An entry is filled only from a read of Redis made
 * while invalidations were arriving, and lives no longer than the key's remaining fresh TTL in Redis (learned with
 * PTTL in the same round trip as the GET), capped by `nearCache.ttlMs`.
 */
export class NearCache implements InvalidationSink {
  readonly store: L1Store;
  private live = false;
  private listener?: ChangeWatch;
  private starting?: Promise<void>;

  constructor(
    readonly settings: NearCacheSettings,
    private readonly source: Pick<CacheStore, 'watchChanges'>,
  ) {
    this.store = new L1Store(settings);
  }

  /** Starts listening for invalidations (idempotent). L1 is bypassed until the listener is subscribed. */
  start(timeoutMs: number): Promise<void> {
    if (!this.starting) {
      this.listener = this.source.watchChanges(this);
      this.starting = this.listener.start(timeoutMs);
    }
    return this.starting;
  }

  async stop(): Promise<void> {
    this.live = false;
    await this.listener?.stop();
    this.store.clear();
  }

  /** The listener's dedicated connections (one per master). */
  connections(): unknown[] {
    return this.listener?.connections() ?? [];
  }

  /** The value held in L1 for an entry key (shared and deep-frozen: see deepFreeze), or {@link NEAR_MISS}. */
  get(entry: string): unknown {
    if (!this.live) return NEAR_MISS;
    const slot = this.store.get(entry, performance.now(), Date.now());
    if (slot === undefined) {
      this.store.stats.misses++;
      return NEAR_MISS;
    }
    this.store.stats.hits++;
    return slot.value;
  }

  /**
   * Reads an entry from Redis (GET + PTTL, auto-pipelined into one round trip) and keeps a fresh one in L1 until
   * its fresh TTL ends — measured from before the request was sent, so L1 lets go no later than Redis does, on
   * both clocks: Redis expires by its wall clock, which a time sync may step forward (see L1Store).
   */
  read(ctx: NearReadContext, entry: string): Promise<FoundEntry | undefined> {
    if (!this.live || !ctx.health.available(entry)) return ctx.read(entry, true);
    const ticket = this.store.begin(entry);
    const sentAt = performance.now();
    const sentAtWall = Date.now();
    return Promise.all([ctx.store.get(entry), ctx.store.pttl(entry)]).then(
      async ([raw, pttl]) => {
        const found = raw === null ? undefined : await ctx.interpret(entry, raw, pttl);
        const freshMs = found === undefined || found.stale || pttl < 0 ? 0 : pttl - found.staleMs;
        if (raw !== null && freshMs > 0) {
          const lifeMs = this.settings.ttlMs > 0 ? Math.min(freshMs, this.settings.ttlMs) : freshMs;
          // The caller that filled L1 gets the same frozen value as later hits, so behaviour does not depend on timing.
          this.store.commit(entry, ticket, found!.decodedBytes, deepFreeze(found!.value), sentAt + lifeMs, sentAtWall + lifeMs);
        } else {
          this.store.abandon(entry);
        }
        return found;
      },
      (error: unknown) => {
        this.store.abandon(entry);
        ctx.health.failed('read', error);
        return undefined;
      },
    );
  }

  /** Drops a key now (a local write or delete), without waiting for Redis's invalidation message. */
  invalidateLocal(entry: string): void {
    this.store.invalidate(entry);
  }

  invalidate(keys: readonly string[]): void {
    for (const key of keys) this.store.invalidate(key);
  }

  clear(): void {
    this.store.clear();
  }

  setLive(live: boolean): void {
    this.live = live;
  }

  stats(): NearCacheStats {
    return { live: this.live, entries: this.store.size, bytes: this.store.byteSize, ...this.store.stats };
  }
}
