import type { RedisExecutor } from '../../core/scripts/redis-executor';
import { entriesOfReadReply, type RawEntry } from '../../messaging/stream-replies';
import { WRITE_BEHIND_FAILED_SCRIPT, WRITE_BEHIND_SETTLE_SCRIPT } from './scripts/write-behind-settle.script';
import { WRITE_BEHIND_WRITE_SCRIPT } from './scripts/write-behind-write.script';

/** A change record as stored (see write-behind-write.script.ts). */
export interface ChangeRecord {
  readonly version: string;
  /** The entry payload, while pending. */
  readonly payload?: string;
  readonly state: 'pending' | 'flushed' | 'dead';
}

/**
 * Where write-behind keeps its announcements (one stream per partition) and change records (beside the cache
 * entries). Every method rejects when the store cannot answer.
 */
export interface WriteBehindStore {
  /** Announces a change of `key` on a partition; resolves with its id, the change's version. */
  announce(stream: string, key: string): Promise<string>;
  /** The atomic step of a write (1 written, 0 overtaken by a newer write, -1 announcement too old). */
  write(entry: string, record: string, payload: string, ttlMs: number, version: string, maxAgeMs: number): Promise<number>;
  record(record: string): Promise<ChangeRecord | undefined>;
  /** Settles a record at `version` (1), unless a newer write replaced it (0). */
  settle(record: string, version: string, state: 'flushed' | 'dead', keepMs: number): Promise<number>;
  /** Counts a failed attempt; resolves with the attempts so far (-1: a newer write replaced the version). */
  failed(record: string, version: string): Promise<number>;
  /** The oldest `count` announcements of a partition, in order. */
  head(stream: string, count: number): Promise<RawEntry[]>;
  /** Removes settled announcements. */
  remove(stream: string, ids: readonly string[]): Promise<number>;
  /** The store's clock in ms: the clock that stamped the announcements' ids. */
  timeMs(): Promise<number>;
  /** Appends a dead letter (trimmed to about `maxLength`). */
  deadLetter(stream: string, fields: readonly string[], maxLength: number): Promise<string>;
  /** Unsettled announcements of a partition. */
  length(stream: string): Promise<number>;
  /** The oldest `count` entries of a dead-letter stream. */
  letters(stream: string, count: number): Promise<RawEntry[]>;
}

/** Injection token of write-behind's {@link WriteBehindStore}. */
export const WRITE_BEHIND_STORE = Symbol('RedisPatterns:WriteBehindStore');

/**
 * The Redis commands of write-behind, through the cache connection's executor: announcements on each partition
 * stream, and the change records beside the cache entries.
 */
export class RedisWriteBehindStore implements WriteBehindStore {
  constructor(private readonly redis: RedisExecutor) {}

  /** Announces a change of `key` on a partition; resolves with its id, the change's version. */
  announce(stream: string, key: string): Promise<string> {
    // No MAXLEN: an announcement leaves the stream only once its change is settled (acknowledged, then deleted).
    return this.redis.call('xadd', stream, '*', 'k', key);
  }

  /** The atomic step of a write (1 written, 0 overtaken by a newer write, -1 announcement too old). */
  write(entry: string, record: string, payload: string, ttlMs: number, version: string, maxAgeMs: number): Promise<number> {
    return this.redis.run(WRITE_BEHIND_WRITE_SCRIPT, [entry, record], [payload, ttlMs, version, maxAgeMs]);
  }

  async record(record: string): Promise<ChangeRecord | undefined> {
    const [version, payload, state] = await this.redis.call<Array<string | null>>('hmget', record, 'v', 'p', 's');
    if (version === null) return undefined;
    return { version, payload: payload ?? undefined, state: (state ?? 'pending') as ChangeRecord['state'] };
  }

  settle(record: string, version: string, state: 'flushed' | 'dead', keepMs: number): Promise<number> {
    return this.redis.run(WRITE_BEHIND_SETTLE_SCRIPT, [record], [version, state, keepMs]);
  }

  /** Counts a failed attempt; resolves with the attempts so far (-1: a newer write replaced the version). */
  failed(record: string, version: string): Promise<number> {
    return this.redis.run(WRITE_BEHIND_FAILED_SCRIPT, [record], [version]);
  }

  /** The oldest `count` announcements of a partition, in order. */
  async head(stream: string, count: number): Promise<RawEntry[]> {
    return entriesOfReadReply([[stream, await this.redis.call('xrange', stream, '-', '+', 'COUNT', count)]]);
  }

  /** Removes settled announcements (the stream holds only unsettled work). */
  remove(stream: string, ids: readonly string[]): Promise<number> {
    return this.redis.call('xdel', stream, ids);
  }

  /**
   * A server's clock, in ms: how old an announcement is, by a Redis clock rather than the application's (on a
   * cluster any node's: nodes' clocks are close enough for the seconds this is compared with).
   */
  async timeMs(): Promise<number> {
    const [seconds, micros] = await this.redis.call<[string, string]>('time');
    return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  }

  /** Appends a dead letter (trimmed to about `maxLength`). */
  deadLetter(stream: string, fields: readonly string[], maxLength: number): Promise<string> {
    return this.redis.call('xadd', stream, 'MAXLEN', '~', maxLength, '*', fields);
  }

  letters(stream: string, count: number): Promise<RawEntry[]> {
    return this.head(stream, count);
  }

  /** Unsettled announcements of a partition (pending or not yet delivered), for drains and gauges. */
  length(stream: string): Promise<number> {
    return this.redis.call('xlen', stream);
  }
}
