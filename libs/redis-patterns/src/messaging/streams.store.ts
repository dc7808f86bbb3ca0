import type { RedisClient, RedisConnections } from '../core/connections/redis-connections';
import { DEFAULT_CONNECTION } from '../core/options/resolve-options';
import { RedisExecutor } from '../core/scripts/redis-executor';
import { deliveriesOfPendingReply, entriesOfReadReply, parseAutoClaimIdsReply, type RawEntry } from './stream-replies';

/** One consumer of a group: the stream's raw key, the group and the consumer's name in it. */
export interface GroupConsumer {
  readonly key: string;
  readonly group: string;
  readonly consumer: string;
}

/** What one {@link StreamReader.readGroup} asks for. */
export interface ReadGroupRequest {
  /** At most this many entries. */
  readonly count: number;
  /** `'>'`: entries never delivered to the group; an id: this consumer's own pending entries after that id. */
  readonly after: string;
  /** How long to wait for a first entry, in ms; without it the read answers at once. */
  readonly blockMs?: number;
}

/** A consumer's own reader: its blocking reads wait on a connection of their own, never in front of other commands. */
export interface StreamReader {
  /**
   * Reads for a consumer of a group (marking new entries delivered to it). Rejects with an error whose message
   * contains `NOGROUP` when the stream or the group does not exist, as Redis does.
   */
  readGroup(reader: GroupConsumer, request: ReadGroupRequest): Promise<RawEntry[]>;
  /**
   * Ends a waiting `readGroup` at once (it rejects). Entries handed out in that instant stay pending and are
   * reclaimed later (at-least-once). Only `close` is valid afterwards.
   */
  interrupt(): void;
  /** Releases the reader and its connection. */
  close(): Promise<void>;
}

/**
 * Where streams live. Keys are raw stream keys (see `StreamsService.keyOf`); `fields` are flat name/value pairs.
 * Every method rejects when the store cannot answer.
 */
export interface StreamsStore {
  /** Appends an entry, trimming the stream to about `maxLength` entries; resolves to the new entry's id. */
  add(key: string, fields: readonly string[], maxLength: number): Promise<string>;
  /** Creates `group` reading from the start of the stream (creating the stream if needed); false when it existed. */
  createGroup(key: string, group: string): Promise<boolean>;
  /**
   * Hands to `claimer` up to `count` entries of its group pending longer than `minIdleMs`, scanning from `cursor`
   * (`'0-0'` to start), and answers their ids; the answered cursor is `'0-0'` once the whole pending list has been
   * scanned. Taking an entry over resets its idle time but does not count a delivery (XAUTOCLAIM JUSTID): the claimer
   * reads it back with `readGroup` when it is about to handle it.
   */
  autoClaim(claimer: GroupConsumer, scan: { minIdleMs: number; cursor: string; count: number }): Promise<{ cursor: string; ids: string[] }>;
  /** How often the store has delivered entry `id`, pending for `owner`; undefined when it is not pending for it. */
  deliveries(owner: GroupConsumer, id: string): Promise<number | undefined>;
  /** Acknowledges entries of a group; resolves to how many were pending. */
  ack(key: string, group: string, ids: readonly string[]): Promise<number>;
  /**
   * Appends `fields` to the dead-letter stream (trimmed to about `maxLength`), then acknowledges `source.id`. Not
   * atomic: a failure in between leaves the entry pending, so it may be dead-lettered twice, never lost.
   */
  deadLetter(
    source: { key: string; group: string; id: string },
    deadLetterKey: string,
    fields: readonly string[],
    maxLength: number,
  ): Promise<void>;
  /** The oldest `count` entries of a stream, or of those after entry `after` (exclusive) when given. */
  range(key: string, count: number, after?: string): Promise<RawEntry[]>;
  /** Deletes entries; resolves to how many existed. */
  delete(key: string, ids: readonly string[]): Promise<number>;
  /** A reader for one consumer; `purpose` names its connection (group and consumer) for operators. */
  openReader(purpose: string): StreamReader;
  /**
   * A group's backlog: entries delivered but not acknowledged (`pending`) and entries not yet delivered (`lag`, null
   * when the server cannot tell); undefined when the group does not exist.
   */
  groupBacklog(key: string, group: string): Promise<GroupBacklog | undefined>;
}

/** See {@link StreamsStore.groupBacklog}. */
export interface GroupBacklog {
  readonly pending: number;
  readonly lag: number | null;
}

/** Injection token of the pattern's {@link StreamsStore}. */
export const STREAMS_STORE = Symbol('RedisPatterns:StreamsStore');

/**
 * Streams on Redis: request-path commands through the executor of the pattern's connection, blocking reads on a
 * dedicated connection per reader (a blocked XREADGROUP would stall every command queued behind it).
 */
export class RedisStreamsStore implements StreamsStore {
  private readonly redis: RedisExecutor;

  constructor(
    private readonly connections: RedisConnections,
    private readonly connection?: string,
  ) {
    this.redis = connections.executor(connection);
  }

  add(key: string, fields: readonly string[], maxLength: number): Promise<string> {
    return this.redis.call('xadd', key, 'MAXLEN', '~', maxLength, '*', fields);
  }

  async createGroup(key: string, group: string): Promise<boolean> {
    try {
      // From `0`, so entries added before the first consumer ran are not skipped. MKSTREAM creates an empty stream:
      // a stream has no TTL and is bounded by MAXLEN instead (documented exception).
      await this.redis.call('xgroup', 'CREATE', key, group, '0', 'MKSTREAM');
      return true;
    } catch (error) {
      if (/BUSYGROUP/.test(String((error as Error)?.message))) return false;
      throw error;
    }
  }

  async autoClaim(
    { key, group, consumer }: GroupConsumer,
    { minIdleMs, cursor, count }: { minIdleMs: number; cursor: string; count: number },
  ): Promise<{ cursor: string; ids: string[] }> {
    const reply = await this.redis.call('xautoclaim', key, group, consumer, minIdleMs, cursor, 'COUNT', count, 'JUSTID');
    const claimed = parseAutoClaimIdsReply(reply);
    return { cursor: claimed.cursor, ids: claimed.ids };
  }

  async deliveries({ key, group, consumer }: GroupConsumer, id: string): Promise<number | undefined> {
    return deliveriesOfPendingReply(await this.redis.call('xpending', key, group, id, id, 1, consumer)).get(id);
  }

  ack(key: string, group: string, ids: readonly string[]): Promise<number> {
    return this.redis.call('xack', key, group, ids);
  }

  async deadLetter(
    source: { key: string; group: string; id: string },
    deadLetterKey: string,
    fields: readonly string[],
    maxLength: number,
  ): Promise<void> {
    // Two commands, copy first: the streams may live in different cluster slots.
    await this.add(deadLetterKey, fields, maxLength);
    await this.ack(source.key, source.group, [source.id]);
  }

  async range(key: string, count: number, after?: string): Promise<RawEntry[]> {
    const start = after === undefined ? '-' : `(${after}`;
    return entriesOfReadReply([[key, await this.redis.call('xrange', key, start, '+', 'COUNT', count)]]);
  }

  delete(key: string, ids: readonly string[]): Promise<number> {
    return this.redis.call('xdel', key, ids);
  }

  /** One XINFO GROUPS (its `lag` field needs Redis 7). */
  async groupBacklog(key: string, group: string): Promise<GroupBacklog | undefined> {
    const groups = await this.redis.call<unknown[][]>('xinfo', 'GROUPS', key);
    for (const fields of groups) {
      const info = new Map<string, unknown>();
      for (let i = 0; i + 1 < fields.length; i += 2) info.set(String(fields[i]), fields[i + 1]);
      if (info.get('name') !== group) continue;
      const lag = info.get('lag');
      return { pending: Number(info.get('pending') ?? 0), lag: lag === null || lag === undefined ? null : Number(lag) };
    }
    return undefined;
  }

  openReader(purpose: string): StreamReader {
    // CLIENT SETNAME accepts no spaces: the connection name shows the purpose, sanitised.
    const client = this.connections.createDedicated(purpose.replace(/[^\w.:-]/g, '_').slice(0, 100), this.connection);
    return new RedisStreamReader(client, this.connection ?? DEFAULT_CONNECTION, () => this.connections.closeDedicated(client));
  }
}

class RedisStreamReader implements StreamReader {
  private readonly redis: RedisExecutor;

  constructor(
    private readonly client: RedisClient,
    connection: string,
    readonly close: () => Promise<void>,
  ) {
    this.redis = RedisExecutor.of(client);
    // A connection of its own to the same server: its outages read as the configured connection's.
    this.redis.failures.connection = connection;
  }

  async readGroup({ key, group, consumer }: GroupConsumer, { count, after, blockMs }: ReadGroupRequest): Promise<RawEntry[]> {
    const block = blockMs === undefined ? [] : ['BLOCK', blockMs];
    const reply = await this.redis.call('xreadgroup', 'GROUP', group, consumer, 'COUNT', count, block, 'STREAMS', key, after);
    return entriesOfReadReply(reply);
  }

  interrupt(): void {
    // A blocked XREADGROUP has nothing else in flight on this connection: dropping the socket ends the wait.
    this.client.disconnect();
  }
}
