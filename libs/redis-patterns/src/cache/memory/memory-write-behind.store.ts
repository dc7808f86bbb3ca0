import type { MemoryKeyspace } from '../../core/memory/memory-keyspace';
import type { RawEntry } from '../../messaging/stream-replies';
import { idMs, newer } from '../write-behind/stream-id';
import type { ChangeRecord, WriteBehindStore } from '../write-behind/write-behind.store';

interface MemoryRecord {
  version: string;
  payload?: string;
  state: ChangeRecord['state'];
  attempts: number;
}

/**
 * Write-behind in memory mode (`connection: 'memory://'`), with the Redis store's semantics: the entry and the
 * record are set together (one process: nothing runs in between), a record has no TTL while pending, and each
 * partition is an ordered list of announcements with ids `<ms>-<seq>` that only grow.
 * Partitions and dead letters are kept beside the keyspace (it holds strings and records, not streams).
 */
export class MemoryWriteBehindStore implements WriteBehindStore {
  private readonly streams = new Map<string, RawEntry[]>();
  private lastMs = 0;
  private lastSeq = 0;

  constructor(private readonly keyspace: MemoryKeyspace) {}

  announce(stream: string, key: string): Promise<string> {
    return settle(() => {
      const id = this.nextId();
      this.partition(stream).push({ id, fields: { k: key } });
      return id;
    });
  }

  write(entry: string, record: string, payload: string, ttlMs: number, version: string, maxAgeMs: number): Promise<number> {
    return settle(() => {
      if (this.keyspace.now() - idMs(version) > maxAgeMs) return -1;
      const current = this.keyspace.get<MemoryRecord>(record);
      if (current && !newer(version, current.version)) return 0;
      this.keyspace.set(entry, payload, ttlMs);
      this.keyspace.set(record, { version, payload, state: 'pending', attempts: 0 } satisfies MemoryRecord, Infinity);
      return 1;
    });
  }

  record(record: string): Promise<ChangeRecord | undefined> {
    return settle(() => {
      const found = this.keyspace.get<MemoryRecord>(record);
      return found && { version: found.version, payload: found.payload, state: found.state };
    });
  }

  settle(record: string, version: string, state: 'flushed' | 'dead', keepMs: number): Promise<number> {
    return settle(() => {
      const found = this.keyspace.get<MemoryRecord>(record);
      if (found?.version !== version) return 0;
      this.keyspace.set(record, { version, state, attempts: found.attempts } satisfies MemoryRecord, keepMs);
      return 1;
    });
  }

  failed(record: string, version: string): Promise<number> {
    return settle(() => {
      const found = this.keyspace.get<MemoryRecord>(record);
      if (found?.version !== version) return -1;
      return ++found.attempts;
    });
  }

  head(stream: string, count: number): Promise<RawEntry[]> {
    return settle(() => this.partition(stream).slice(0, count));
  }

  remove(stream: string, ids: readonly string[]): Promise<number> {
    return settle(() => {
      const gone = new Set(ids);
      const entries = this.partition(stream);
      const kept = entries.filter((entry) => !gone.has(entry.id));
      this.streams.set(stream, kept);
      return entries.length - kept.length;
    });
  }

  timeMs(): Promise<number> {
    return settle(() => this.keyspace.now());
  }

  deadLetter(stream: string, fields: readonly string[], maxLength: number): Promise<string> {
    return settle(() => {
      const id = this.nextId();
      const entries = this.partition(stream);
      const record: Record<string, string> = {};
      for (let i = 0; i + 1 < fields.length; i += 2) record[fields[i]] = fields[i + 1];
      entries.push({ id, fields: record });
      if (entries.length > maxLength) entries.splice(0, entries.length - maxLength);
      return id;
    });
  }

  length(stream: string): Promise<number> {
    return settle(() => this.partition(stream).length);
  }

  letters(stream: string, count: number): Promise<RawEntry[]> {
    return this.head(stream, count);
  }

  private partition(stream: string): RawEntry[] {
    let entries = this.streams.get(stream);
    if (!entries) this.streams.set(stream, (entries = []));
    return entries;
  }

  // As XADD's `*`: the clock's ms, and a sequence within one ms (or when the clock went back).
  private nextId(): string {
    const ms = this.keyspace.now();
    if (ms > this.lastMs) {
      this.lastMs = ms;
      this.lastSeq = 0;
    } else this.lastSeq++;
    return `${this.lastMs}-${this.lastSeq}`;
  }
}

// Answers asynchronously, as a server would: callers never depend on a store answering within their own turn.
function settle<T>(work: () => T): Promise<T> {
  return Promise.resolve().then(work);
}
