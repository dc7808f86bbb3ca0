import { randomBytes } from 'node:crypto';
import { withDeadline } from '../../core/time/with-deadline';
import { libraryTracer } from '../../core/telemetry/tracing';
import type { CacheSettings } from '../cache.options';
import type { DecodedEntry } from '../serialization/entry-envelope';
import { CacheEntryCodec } from './cache-entry-codec';
import { type Fetched, type FoundEntry, found, NOTHING, type StorePredicate } from './cache-entry';
import { type CacheHealth, isRefusal } from './cache-health';
import type { CacheStore } from '../cache.store';
import { waitForFillLock } from './fill-lock-wait';
import { type EntryPolicy, freshTtlMs, jitteredTtlMs } from './entry-policy';
import { SingleFlight } from './single-flight';
import { NEAR_MISS, type NearCache } from '../near/near-cache';
import { isThenable } from '../../core/promises/is-thenable';
import { GraceRetry } from './grace-retry';
import { fromGrace, guardLoad } from './loader-guard';
import { refreshInBackground, shouldRefreshEarly } from './background-refresh';

// How much longer than its entry a key stays in a tag's index (and so the index's TTL): the member's expiry is counted
// from its registration, which happens just before the entry's write, whose TTL is counted from when it lands.
const TAG_TTL_MARGIN_MS = 1000;

/** The span of a loader run on a miss or a background refresh (never the key: it may hold ids). */
const CACHE_LOAD_SPAN = 'redis_patterns.cache.load';
const ON_MISS = Object.freeze({ 'redis_patterns.cache.refresh': false });
const ON_REFRESH = Object.freeze({ 'redis_patterns.cache.refresh': true });

/**
 * The cache-aside machinery behind CacheService and the decorators: one-GET reads, in-process single-flight, a
 * cross-instance fill lock with bounded, backed-off waiting, stale-while-revalidate and XFetch refreshes in the
 * background, a grace value and soft and hard timeouts for a loader that fails or runs late, and tag-aware writes.
 * Every Redis failure goes to {@link CacheHealth} (fail open).
 */
export class CacheEngine {
  readonly flights = new SingleFlight();
  /** The in-process L1, used by calls whose policy has `near` (see CacheService.nearPolicy). */
  near?: NearCache;
  /** How values become stored entries and back (codecs, compression, the size cap). */
  readonly entries: CacheEntryCodec;
  /** Loaders run in a span when tracing is live and the caller is traced; hits never reach the tracer. */
  private readonly tracer = libraryTracer();
  /** Keys answered from grace after a failed load, until `cache.graceRetryMs` has passed. */
  private readonly graceRetry: GraceRetry;

  constructor(
    readonly store: CacheStore,
    readonly health: CacheHealth,
    readonly settings: CacheSettings,
  ) {
    this.entries = new CacheEntryCodec(settings);
    this.graceRetry = new GraceRetry(settings.graceRetryMs);
  }

  /**
   * One GET (plus PTTL when the caller needs freshness details, pipelined into the same round trip). Written with
   * `then` rather than `await`: this is the hit path, and every saved promise hop shows in throughput.
   */
  read(entry: string, withTtl: boolean): Promise<FoundEntry | undefined> {
    if (!this.health.available(entry)) return NOTHING;
    if (withTtl) {
      return Promise.all([this.store.get(entry), this.store.pttl(entry)]).then(([raw, pttl]) => {
        return raw === null ? undefined : this.interpret(entry, raw, pttl);
      }, this.readFailed);
    }
    return this.store.get(entry).then((raw) => {
      return raw === null ? undefined : this.interpret(entry, raw);
    }, this.readFailed);
  }

  /**
   * Decodes a raw entry, synchronously in the common case; an entry with a stale window whose PTTL is unknown costs
   * one PTTL to learn whether it is past its fresh TTL.
   */
  interpret(entry: string, raw: string, pttl?: number): FoundEntry | undefined | Promise<FoundEntry | undefined> {
    const decoded = this.entries.decode(raw);
    if (!decoded) return undefined;
    // A compressed entry decodes off the event loop.
    if (isThenable<DecodedEntry | undefined>(decoded))
      return Promise.resolve(decoded).then((done) => (done ? this.fresh(entry, done, pttl) : undefined));
    return this.fresh(entry, decoded, pttl);
  }

  private fresh(entry: string, decoded: DecodedEntry, pttl: number | undefined): FoundEntry | Promise<FoundEntry | undefined> {
    if ((decoded.staleMs > 0 || decoded.graceMs > 0) && pttl === undefined) {
      return this.store.pttl(entry).then((ttl) => found(decoded, ttl), this.readFailed);
    }
    return found(decoded, pttl);
  }

  private readonly readFailed = (error: unknown): undefined => {
    this.health.failed('read', error);
    return undefined;
  };

  /**
   * Cache-aside: the cached value, or the loader's (run once per key across callers and instances). `forceFresh`
   * skips the read: the loader runs and its result replaces the entry.
   */
  fetch<T>(entry: string, loader: () => Promise<T>, policy: EntryPolicy, keep?: StorePredicate, forceFresh = false): Promise<Fetched<T>> {
    if (forceFresh) {
      this.health.answered('miss');
      return this.loadOnce(entry, loader, policy, keep, undefined, true);
    }
    const near = policy.near ? this.near : undefined;
    if (near !== undefined) {
      const value = near.get(entry);
      if (value !== NEAR_MISS) {
        this.health.answered('near_hit');
        return Promise.resolve({ value: value as T, status: 'hit' });
      }
    }
    const read =
      near !== undefined ? near.read(this, entry) : this.read(entry, policy.staleMs > 0 || policy.beta > 0 || policy.graceMs > 0);
    return read.then((hit) => {
      if (hit) {
        if (!hit.stale) {
          this.health.answered('hit');
          if (policy.beta > 0 && shouldRefreshEarly(hit, policy)) refreshInBackground(this, entry, loader, policy, keep);
          return { value: hit.value as T, status: 'hit' as const };
        }
        if (policy.staleMs > 0 && !hit.inGrace) {
          this.health.answered('stale');
          refreshInBackground(this, entry, loader, policy, keep);
          return { value: hit.value as T, status: 'stale' as const };
        }
        // The loader of this key failed a moment ago: its grace value answers until it is tried again.
        if (policy.graceMs > 0 && this.graceRetry.waiting(entry)) return fromGrace<T>(hit, this.health);
      }
      this.health.answered('miss');
      return this.loadOnce(entry, loader, policy, keep, hit, false);
    });
  }

  /**
   * The load of a miss, shared by the calls of this process (single flight). `fallback` is the value past its fresh
   * TTL this call found, if any: it answers when the load fails (with a grace window) or runs past a timeout.
   */
  private loadOnce<T>(
    entry: string,
    loader: () => Promise<T>,
    policy: EntryPolicy,
    keep: StorePredicate | undefined,
    fallback: FoundEntry | undefined,
    force: boolean,
  ): Promise<Fetched<T>> {
    const flight = this.flights.run(entry, () => this.fill(entry, loader, policy, keep, force));
    if (fallback === undefined && policy.hardTimeoutMs === 0) return flight;
    return guardLoad(flight, policy, fallback, { entry, health: this.health, graceRetry: this.graceRetry });
  }

  /**
   * Stores a value. `strict` (CacheService.set) throws on values that cannot be stored; otherwise (a loader's or a
   * method's result) they are skipped with a rate-limited warning. Returns whether the value was written.
   */
  async write(
    entry: string,
    value: unknown,
    policy: EntryPolicy,
    opts: { strict: boolean; deltaMs?: number; epochs?: number[]; token?: string },
  ): Promise<boolean> {
    let payload: string;
    let px: number;
    try {
      px = jitteredTtlMs(freshTtlMs(policy, value), policy.jitter) + policy.staleMs + policy.graceMs;
      payload = await this.entries.encode(value, policy, opts.deltaMs ?? 0);
    } catch (error) {
      if (opts.strict) throw error;
      this.health.stats.skippedWrites++;
      this.health.warn(`Cache write skipped: ${(error as Error).message}`);
      if (opts.token) void this.release(entry, opts.token);
      return false;
    }
    if (!this.health.available(entry)) {
      if (opts.token) void this.release(entry, opts.token);
      return false;
    }
    try {
      let written: boolean;
      if (policy.tags.length === 0) {
        written = opts.token
          ? await this.store.writeChecked(entry, payload, px, opts.token, [])
          : await this.store.setPlain(entry, payload, px);
      } else {
        const seen = await Promise.all(
          policy.tags.map((tag, i) => this.store.registerTag(tag, entry, px + TAG_TTL_MARGIN_MS, opts.epochs?.[i])),
        );
        if (seen.some((epoch) => epoch < 0)) {
          // An invalidation ran while the loader did: its result may predate it, so it is not stored.
          if (opts.token) await this.store.releaseLock(entry, opts.token);
          written = false;
        } else {
          written = await this.store.writeChecked(
            entry,
            payload,
            px,
            opts.token ?? '',
            policy.tags.flatMap((tag, i) => [tag, seen[i]]),
          );
        }
      }
      if (!written) this.health.stats.skippedWrites++;
      return written;
    } catch (error) {
      this.health.failed('write', error);
      if (opts.token) void this.release(entry, opts.token);
      // An explicit write refused by the server's configuration would never succeed: the caller must hear of it.
      if (opts.strict && isRefusal(error)) throw error;
      return false;
    }
  }

  /** Resolves when every running load and background refresh has settled (for shutdown). */
  async drain(timeoutMs: number): Promise<void> {
    const running = this.flights.all();
    if (running.length === 0) return;
    await withDeadline(Promise.allSettled(running), timeoutMs, () => undefined);
  }

  private async fill<T>(
    entry: string,
    loader: () => Promise<T>,
    policy: EntryPolicy,
    keep: StorePredicate | undefined,
    force: boolean,
  ): Promise<Fetched<T>> {
    // Redis stopped answering (this call's read, most likely, took the connection down): go to the source without
    // another deadline.
    if (!this.health.available(entry)) return this.load(entry, loader, policy, keep, undefined, undefined);
    let epochs: number[] | undefined = [];
    if (policy.tags.length > 0) epochs = await this.tagEpochs(policy.tags);
    const token = randomBytes(12).toString('base64url');
    const outcome = await waitForFillLock(this.store, this.health, entry, token, this.settings, force);
    if (outcome.kind === 'locked') return this.load(entry, loader, policy, keep, epochs, token);
    if (outcome.kind === 'entry') {
      const found = await this.interpret(entry, outcome.raw, undefined);
      if (found && !found.stale) return { value: found.value as T, status: 'hit' };
    }
    // Busy past the wait budget, an entry that is stale, or Redis failing: load without the lock.
    return this.load(entry, loader, policy, keep, epochs, undefined);
  }

  /** Runs the loader and stores its result (the fill lock's `token` released on every path). */
  async load<T>(
    entry: string,
    loader: () => Promise<T>,
    policy: EntryPolicy,
    keep: StorePredicate | undefined,
    epochs: number[] | undefined,
    token: string | undefined,
    refresh = false,
  ): Promise<Fetched<T>> {
    const started = performance.now();
    let value: T;
    try {
      value = await (this.tracer.live ? this.tracedLoad(loader, refresh) : loader());
    } catch (error) {
      this.health.loaded(started);
      if (token) void this.release(entry, token);
      throw error;
    }
    this.health.loaded(started);
    // Without the tags' epochs (Redis failed) a tagged result cannot be stored safely; undefined is never cached.
    if (value === undefined || epochs === undefined || (keep && !keep(value))) {
      if (token) void this.release(entry, token);
      return { value, status: 'miss' };
    }
    const deltaMs = Math.max(1, Math.round(performance.now() - started));
    await this.write(entry, value, policy, { strict: false, deltaMs, epochs: policy.tags.length ? epochs : undefined, token });
    return { value, status: 'miss' };
  }

  /** The loader inside a child span of the caller's (the one that started the flight, when callers share it). */
  private tracedLoad<T>(loader: () => Promise<T>, refresh: boolean): Promise<T> {
    const span = this.tracer.startChild(CACHE_LOAD_SPAN, refresh ? ON_REFRESH : ON_MISS);
    return span === undefined ? loader() : this.tracer.run(span, loader);
  }

  /** The tags' current epochs, or undefined when Redis failed (then a tagged result is not stored). */
  async tagEpochs(tags: readonly string[]): Promise<number[] | undefined> {
    if (!this.health.available()) return undefined;
    try {
      const epochs = await this.store.tagEpochs(tags);
      return epochs;
    } catch (error) {
      this.health.failed('tag read', error);
      return undefined;
    }
  }

  private async release(entry: string, token: string): Promise<void> {
    try {
      await this.store.releaseLock(entry, token);
    } catch (error) {
      this.health.failed('lock release', error);
    }
  }
}
