import { Cluster } from 'ioredis';
import type { RedisClient } from '../../core/connections/redis-connections';
import { excludeFromAutoPipelining } from '../../core/scripts/exclude-from-auto-pipelining';
import { runScript } from '../../core/scripts/redis-script';
import { MAX_BATCH_ITEMS } from '../../core/scripts/run-batched';
import { FILL_LOCK_SCRIPT } from '../scripts/fill-lock.script';
import { INVALIDATE_ENTRY_SCRIPT } from '../scripts/invalidate-entry.script';
import { RELEASE_FILL_LOCK_SCRIPT } from '../scripts/release-lock.script';
import { TAG_INVALIDATE_SCRIPT } from '../scripts/tag-invalidate.script';
import { TAG_REGISTER_SCRIPT } from '../scripts/tag-register.script';
import { WRITE_ENTRY_SCRIPT } from '../scripts/write-entry.script';
import type { CacheKeys } from './cache-keys';
import { resendIfRefused } from './resend-refused';

const CACHE_SCRIPTS = [
  FILL_LOCK_SCRIPT,
  INVALIDATE_ENTRY_SCRIPT,
  RELEASE_FILL_LOCK_SCRIPT,
  TAG_INVALIDATE_SCRIPT,
  TAG_REGISTER_SCRIPT,
  WRITE_ENTRY_SCRIPT,
];

interface ReadBatch {
  readonly entries: string[];
  readonly settle: Array<{ resolve(value: string | null): void; reject(error: unknown): void }>;
}

/** Outcome of the fill-lock script: a fresh entry, the lock, or another caller's lock (with its remaining TTL). */
export type FillLockReply = { kind: 'entry'; raw: string } | { kind: 'locked' } | { kind: 'busy'; lockPttl: number };

/**
 * The cache's Redis commands, one method per round trip. Methods throw on Redis errors; the engine applies the
 * fail-open policy. Nothing here sends a multi-key command across slots: scripts get keys of one hash tag, and
 * batch reads on a cluster are per-key GETs (auto-pipelined per node).
 */
export class CacheStore {
  private readonly isCluster: boolean;
  private readBatch?: ReadBatch;
  /**
   * Called with an entry key before and after every write or delete of it (the near cache drops its copy, so this
   * process reads its own writes without waiting for Redis's invalidation message).
   */
  onChange?: (entry: string) => void;

  constructor(
    readonly client: RedisClient,
    readonly keys: CacheKeys,
  ) {
    this.isCluster = client instanceof Cluster;
    // A cluster auto-pipeline batch holds the commands of many slots of one node and is retried on a redirection
    // only when every command in it failed the same way; a multi-key script on a slot being migrated (TRYAGAIN)
    // next to a command that succeeded would fail outright. Sent on their own, scripts get ioredis' TRYAGAIN retry
    // within the command deadline.
    if (this.isCluster) excludeFromAutoPipelining(client, CACHE_SCRIPTS);
  }

  /**
   * The hit path. On a single server the reads of one event-loop turn share one MGET (up to MAX_BATCH_ITEMS keys;
   * a lone read is a GET), sent at the end of the turn: the hits of HTTP requests read together cost Redis one
   * command and the app one socket write. Every other command of this store sends the pending reads first, so a
   * read issued before a write is never answered after it. On a cluster each entry has its own slot: plain GETs.
   */
  get(entry: string): Promise<string | null> {
    if (this.isCluster) return resendIfRefused(this.client as Cluster, this.client.get(entry), 'get', [entry]);
    let batch = this.readBatch;
    if (!batch) {
      batch = this.readBatch = { entries: [], settle: [] };
      setImmediate(this.sendReads);
    }
    const pending = batch;
    pending.entries.push(entry);
    const reply = new Promise<string | null>((resolve, reject) => pending.settle.push({ resolve, reject }));
    if (pending.entries.length >= MAX_BATCH_ITEMS) this.sendReads();
    return reply;
  }

  pttl(entry: string): Promise<number> {
    this.sendReads();
    return this.plain(this.client.pttl(entry), 'pttl', entry);
  }

  /** One MGET on a single server; per-key GETs on a cluster, where each entry has its own slot. */
  getMany(entries: readonly string[]): Promise<Array<string | null>> {
    if (entries.length === 0) return Promise.resolve([]);
    if (this.isCluster) return Promise.all(entries.map((entry) => this.get(entry)));
    this.sendReads();
    return this.client.mget(...entries);
  }

  async fillLock(entry: string, token: string, lockTtlMs: number, acceptEntry: boolean): Promise<FillLockReply> {
    this.sendReads();
    const reply = await runScript(
      this.client,
      FILL_LOCK_SCRIPT,
      [entry, this.keys.lock(entry)],
      [token, lockTtlMs, acceptEntry ? '1' : '0'],
    );
    if (reply[0] === 1) return { kind: 'entry', raw: reply[1] as string };
    if (reply[0] === 2) return { kind: 'locked' };
    return { kind: 'busy', lockPttl: Number(reply[1]) };
  }

  releaseLock(entry: string, token: string): Promise<number> {
    this.sendReads();
    return runScript(this.client, RELEASE_FILL_LOCK_SCRIPT, [this.keys.lock(entry)], [token]);
  }

  /** A plain SET … PX: value and TTL in one atomic command (invariant 1). */
  async setPlain(entry: string, payload: string, px: number): Promise<boolean> {
    this.sendReads();
    this.onChange?.(entry);
    try {
      await this.plain(this.client.set(entry, payload, 'PX', px), 'set', entry, payload, 'PX', px);
    } finally {
      this.onChange?.(entry);
    }
    return true;
  }

  /** The write script: refuses a write overtaken by a tag invalidation, releases the fill lock. */
  async writeChecked(
    entry: string,
    payload: string,
    px: number,
    token: string,
    tagEpochs: ReadonlyArray<string | number>,
  ): Promise<boolean> {
    const keys = [entry, this.keys.tombstone(entry), this.keys.lock(entry)];
    this.sendReads();
    this.onChange?.(entry);
    try {
      return (await runScript(this.client, WRITE_ENTRY_SCRIPT, keys, [payload, px, token, ...tagEpochs])) === 1;
    } finally {
      this.onChange?.(entry);
    }
  }

  /** The current epoch of each tag (0 when never invalidated). */
  async tagEpochs(tags: readonly string[]): Promise<number[]> {
    const values = await Promise.all(tags.map((tag) => this.get(this.keys.tagEpoch(tag))));
    return values.map((value) => (value === null ? 0 : Number(value)));
  }

  registerTag(tag: string, entry: string, px: number, expectedEpoch: number | undefined): Promise<number> {
    const keys = [this.keys.tagMembers(tag), this.keys.tagEpoch(tag)];
    this.sendReads();
    return runScript(this.client, TAG_REGISTER_SCRIPT, keys, [entry, px, expectedEpoch === undefined ? '' : expectedEpoch]);
  }

  async invalidateTag(tag: string, minEpochTtlMs: number): Promise<{ epoch: number; ttlMs: number; members: string[] }> {
    const keys = [this.keys.tagMembers(tag), this.keys.tagEpoch(tag)];
    this.sendReads();
    const [epoch, ttlMs, members] = await runScript(this.client, TAG_INVALIDATE_SCRIPT, keys, [minEpochTtlMs]);
    return { epoch: Number(epoch), ttlMs: Number(ttlMs), members };
  }

  async invalidateEntry(entry: string, tag: string, epoch: number, ttlMs: number): Promise<boolean> {
    this.sendReads();
    this.onChange?.(entry);
    try {
      return (await runScript(this.client, INVALIDATE_ENTRY_SCRIPT, [entry, this.keys.tombstone(entry)], [tag, epoch, ttlMs])) === 1;
    } finally {
      this.onChange?.(entry);
    }
  }

  /**
   * Deletes an entry after replacing its fill lock by a marker (`~`, for `lockTtlMs`): a fill that was loading when
   * `del` was called then finds its lock taken and does not write back what it loaded (the write script checks),
   * while new callers may take the lock at once. Both commands go to the entry's slot, marker first.
   */
  async del(entry: string, lockTtlMs: number): Promise<boolean> {
    this.sendReads();
    this.onChange?.(entry);
    try {
      const lock = this.keys.lock(entry);
      const [, deleted] = await Promise.all([
        this.plain(this.client.set(lock, '~', 'PX', lockTtlMs), 'set', lock, '~', 'PX', lockTtlMs),
        this.plain(this.client.del(entry), 'del', entry),
      ]);
      return deleted === 1;
    } finally {
      this.onChange?.(entry);
    }
  }

  // Sends the reads waiting for the end of the turn (see get): a no-op when none are.
  private readonly sendReads = (): void => {
    const batch = this.readBatch;
    if (!batch) return;
    this.readBatch = undefined;
    const { entries, settle } = batch;
    if (entries.length === 1) {
      this.client.get(entries[0]).then(settle[0].resolve, settle[0].reject);
      return;
    }
    this.client.mget(entries).then(
      (values) => {
        for (let i = 0; i < settle.length; i++) settle[i].resolve(values[i] ?? null);
      },
      (error: unknown) => {
        for (const item of settle) item.reject(error);
      },
    );
  };

  /** A plain command's reply; on a cluster, resent alone when its auto-pipelined batch was refused (see resendIfRefused). */
  private plain<T>(reply: Promise<T>, name: string, ...args: Array<string | number>): Promise<T> {
    return this.isCluster ? resendIfRefused(this.client as Cluster, reply, name, args) : reply;
  }
}
