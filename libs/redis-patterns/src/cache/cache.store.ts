import type { LoggerService } from '@nestjs/common';
import { Cluster } from 'ioredis';
import { RedisExecutor } from '../core/scripts/redis-executor';
import type { CacheKeys } from './engine/cache-keys';
import { InvalidationListener, type InvalidationSink } from './near/invalidation-listener';
import { FILL_LOCK_SCRIPT } from './scripts/fill-lock.script';
import { INVALIDATE_ENTRY_SCRIPT } from './scripts/invalidate-entry.script';
import { RELEASE_FILL_LOCK_SCRIPT } from './scripts/release-lock.script';
import { TAG_INVALIDATE_SCRIPT } from './scripts/tag-invalidate.script';
import { TAG_REGISTER_SCRIPT } from './scripts/tag-register.script';
import { WRITE_ENTRY_SCRIPT } from './scripts/write-entry.script';

/**
 * What a fill-lock attempt accepts instead of the lock:
 * - `entry`: a fresh entry (a miss re-checks the cache in the same step as it takes the lock);
 * - `lock`: nothing, the lock only (a background refresh, the first attempt of a forced refresh);
 * - `after-holder`: a fresh entry once no one holds the lock (a forced refresh waiting for another instance's load).
 */
export type FillLockMode = 'entry' | 'lock' | 'after-holder';

/** Outcome of the fill-lock script: a fresh entry, the lock, or another caller's lock (with its remaining TTL). */
export type FillLockReply = { kind: 'entry'; raw: string } | { kind: 'locked' } | { kind: 'busy'; lockPttl: number };

/** What a tag invalidation took: the tag's new epoch, its lifetime, and the live entries that carried the tag. */
export interface TakenTag {
  readonly epoch: number;
  readonly ttlMs: number;
  readonly members: string[];
}

/** A running watch of entry changes (see {@link CacheStore.watchChanges}). */
export interface ChangeWatch {
  /** Resolves once changes are arriving, or after `timeoutMs` (the sink stays not live until then). */
  start(timeoutMs: number): Promise<void>;
  stop(): Promise<void>;
  /** The connections the watch holds open (for diagnostics and tests). */
  connections(): unknown[];
}

/** The fill-lock script's ARGV[3] per mode. */
const FILL_LOCK_MODES: Readonly<Record<FillLockMode, string>> = { entry: '1', lock: '0', 'after-holder': '2' };

/**
 * Where cache entries live: one method per round trip, keyed by raw entry keys (see CacheKeys). Methods reject on
 * a store error; the engine applies the fail-open policy.
 */
export interface CacheStore {
  /**
   * Called with an entry key before and after every write or delete of it (the near cache drops its copy, so this
   * process reads its own writes without waiting for Redis's invalidation message).
   */
  onChange?: (entry: string) => void;
  get(entry: string): Promise<string | null>;
  /** Remaining lifetime in ms (−2 missing, −1 no TTL), as PTTL answers. */
  pttl(entry: string): Promise<number>;
  getMany(entries: readonly string[]): Promise<Array<string | null>>;
  /** Takes the entry's fill lock, or answers with the entry (as `mode` allows) or the holder's remaining TTL. */
  fillLock(entry: string, token: string, lockTtlMs: number, mode: FillLockMode): Promise<FillLockReply>;
  /** Releases the fill lock if `token` still holds it; 1 released, 0 not. */
  releaseLock(entry: string, token: string): Promise<number>;
  /** Value and TTL in one atomic step (invariant 1). */
  setPlain(entry: string, payload: string, px: number): Promise<boolean>;
  /** Writes unless a tag invalidation overtook the load (`tagEpochs`: tag, epoch read before loading, …). */
  writeChecked(entry: string, payload: string, px: number, token: string, tagEpochs: ReadonlyArray<string | number>): Promise<boolean>;
  /** The current epoch of each tag (0 when never invalidated). */
  tagEpochs(tags: readonly string[]): Promise<number[]>;
  /**
   * Registers `entry` in the tag's index as live for `px` ms from now (a later expiry already there is kept), after
   * pruning members whose expiry has passed; the tag's epoch, or −1 when it is not `expectedEpoch`.
   */
  registerTag(tag: string, entry: string, px: number, expectedEpoch: number | undefined): Promise<number>;
  /** Bumps the tag's epoch and takes its index: the members still live, and a TTL bounding theirs. */
  invalidateTag(tag: string, minEpochTtlMs: number): Promise<TakenTag>;
  invalidateEntry(entry: string, tag: string, epoch: number, ttlMs: number): Promise<boolean>;
  /** Deletes an entry so that a fill loading when it was called does not write back what it loaded. */
  del(entry: string, lockTtlMs: number): Promise<boolean>;
  /**
   * The entry keys that start with `prefix`, a page at a time (SCAN with MATCH on every master, `count` per call;
   * fill locks and tombstones left out). A key written during the scan may or may not be listed.
   */
  entriesUnder(prefix: string, count: number): AsyncIterable<string[]>;
  /** Reports every change of an entry, by any client, to `sink` (the near cache's coherence). */
  watchChanges(sink: InvalidationSink): ChangeWatch;
  /**
   * While the server that holds `key` is known not to answer (the connection's liveness; on a cluster, the key's
   * master's; without `key`, a single server's), the error that took it down: the cache then skips Redis.
   */
  outageFor(key?: string): unknown;
}

/** Injection token of the pattern's {@link CacheStore}. */
export const CACHE_STORE = Symbol('RedisPatterns:CacheStore');

/**
 * The cache on Redis. Nothing here sends a multi-key command across slots: scripts get keys of one hash tag, and
 * reads of many entries on a cluster are per-key GETs. Reads of one event-loop turn share one MGET on a single
 * server (see RedisExecutor.read).
 */
export class RedisCacheStore implements CacheStore {
  onChange?: (entry: string) => void;

  constructor(
    private readonly redis: RedisExecutor,
    private readonly keys: CacheKeys,
    private readonly watcher: { readonly connectionName: string; readonly logger: LoggerService },
  ) {}

  get(entry: string): Promise<string | null> {
    return this.redis.read(entry);
  }

  pttl(entry: string): Promise<number> {
    return this.redis.call('pttl', entry);
  }

  getMany(entries: readonly string[]): Promise<Array<string | null>> {
    return this.redis.readMany(entries);
  }

  async fillLock(entry: string, token: string, lockTtlMs: number, mode: FillLockMode): Promise<FillLockReply> {
    const keys = [entry, this.keys.lock(entry)];
    const reply = await this.redis.run(FILL_LOCK_SCRIPT, keys, [token, lockTtlMs, FILL_LOCK_MODES[mode]]);
    if (reply[0] === 1) return { kind: 'entry', raw: reply[1] as string };
    if (reply[0] === 2) return { kind: 'locked' };
    return { kind: 'busy', lockPttl: Number(reply[1]) };
  }

  releaseLock(entry: string, token: string): Promise<number> {
    return this.redis.run(RELEASE_FILL_LOCK_SCRIPT, [this.keys.lock(entry)], [token]);
  }

  /** A plain SET … PX. */
  setPlain(entry: string, payload: string, px: number): Promise<boolean> {
    return this.changing(entry, () => this.redis.call('set', entry, payload, 'PX', px).then(() => true));
  }

  /** The write script: refuses a write overtaken by a tag invalidation, releases the fill lock. */
  writeChecked(entry: string, payload: string, px: number, token: string, tagEpochs: ReadonlyArray<string | number>): Promise<boolean> {
    const keys = [entry, this.keys.tombstone(entry), this.keys.lock(entry)];
    return this.changing(entry, () => this.redis.run(WRITE_ENTRY_SCRIPT, keys, [payload, px, token, ...tagEpochs]).then(isOne));
  }

  async tagEpochs(tags: readonly string[]): Promise<number[]> {
    const values = await Promise.all(tags.map((tag) => this.redis.read(this.keys.tagEpoch(tag))));
    return values.map((value) => (value === null ? 0 : Number(value)));
  }

  registerTag(tag: string, entry: string, px: number, expectedEpoch: number | undefined): Promise<number> {
    const keys = [this.keys.tagIndex(tag), this.keys.tagEpoch(tag)];
    return this.redis.run(TAG_REGISTER_SCRIPT, keys, [entry, px, expectedEpoch === undefined ? '' : expectedEpoch]);
  }

  async invalidateTag(tag: string, minEpochTtlMs: number): Promise<TakenTag> {
    const keys = [this.keys.tagIndex(tag), this.keys.tagEpoch(tag)];
    const [epoch, ttlMs, members] = await this.redis.run(TAG_INVALIDATE_SCRIPT, keys, [minEpochTtlMs]);
    return { epoch: Number(epoch), ttlMs: Number(ttlMs), members };
  }

  invalidateEntry(entry: string, tag: string, epoch: number, ttlMs: number): Promise<boolean> {
    const keys = [entry, this.keys.tombstone(entry)];
    return this.changing(entry, () => this.redis.run(INVALIDATE_ENTRY_SCRIPT, keys, [tag, epoch, ttlMs]).then(isOne));
  }

  /**
   * Replaces the entry's fill lock by a marker (`~`, for `lockTtlMs`), then deletes the entry: a fill that was
   * loading finds its lock taken and does not write back (the write script checks), while new callers may take the
   * lock at once. Both commands go to the entry's slot, marker first.
   */
  del(entry: string, lockTtlMs: number): Promise<boolean> {
    const lock = this.keys.lock(entry);
    return this.changing(entry, () =>
      Promise.all([this.redis.call('set', lock, '~', 'PX', lockTtlMs), this.redis.call<number>('del', entry)]).then(
        ([, deleted]) => deleted === 1,
      ),
    );
  }

  async *entriesUnder(prefix: string, count: number): AsyncIterable<string[]> {
    const client = this.redis.client;
    const match = `${prefix.replace(/[*?[\]\\]/g, (char) => `\\${char}`)}*`;
    for (const node of client instanceof Cluster ? client.nodes('master') : [client]) {
      let cursor = '0';
      do {
        // Through the node's executor, like every command: its deadline and its outage and refusal errors apply.
        const [next, keys] = await RedisExecutor.of(node).call<[string, string[]]>('scan', cursor, 'MATCH', match, 'COUNT', count);
        cursor = next;
        const entries = keys.filter(isEntryKey);
        if (entries.length > 0) yield entries;
      } while (cursor !== '0');
    }
  }

  /** Server-assisted client-side caching over the entries' prefix: see InvalidationListener. */
  watchChanges(sink: InvalidationSink): ChangeWatch {
    const { connectionName, logger } = this.watcher;
    return new InvalidationListener(this.redis.client, this.keys.entryPrefix(), connectionName, sink, logger);
  }

  outageFor(key?: string): unknown {
    return this.redis.outageFor(key);
  }

  private async changing<T>(entry: string, write: () => Promise<T>): Promise<T> {
    this.onChange?.(entry);
    try {
      return await write();
    } finally {
      this.onChange?.(entry);
    }
  }
}

function isOne(reply: number): boolean {
  return reply === 1;
}

/** Entry keys end with their hash tag's `}`; an entry's lock and tombstones end with a suffix after it. */
export function isEntryKey(key: string): boolean {
  return key.charCodeAt(key.length - 1) === 125; /* '}' */
}
