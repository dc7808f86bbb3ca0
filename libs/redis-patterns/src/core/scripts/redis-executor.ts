import { type Cluster, Command, type Redis } from 'ioredis';
import { type BatchedScript, batchOfOne, shapeMismatch } from './batched-script';
import { ReadBatches } from './read-batches';
import type { RedisScript } from './redis-script';
import { failBatch, type PendingBatch, ScriptBatches, settleBatch } from './script-batches';
import { outageReason } from './outage-reason';
import { wasRefused } from './was-refused';
import { RedisRefusedError } from '../../errors/redis-refused.error';
import { RedisUnavailableError } from '../../errors/redis-unavailable.error';

type RedisArg = string | number | Buffer;
type RedisClient = Redis | Cluster;

type ReplyEncoding = { readonly replyEncoding?: 'utf8' };
const UTF8: ReplyEncoding = { replyEncoding: 'utf8' };
// No reply encoding: ioredis hands the reply over as Buffers.
const BINARY: ReplyEncoding = {};

/**
 * The one way the library sends commands to a Redis connection: every store calls Redis through the executor of
 * its connection, so registration of scripts, batching, ordering and the cluster retry live here, once.
 *
 * - Scripts go as EVALSHA of their content hash, and as EVAL after a NOSCRIPT (a SCRIPT FLUSH, a restart, a new
 *   cluster node): nothing is defined on the client, so an adopted client is left exactly as it was handed over.
 * - Scripts are sent on their own, never through ioredis auto-pipelining, whatever the client's options. ioredis
 *   keeps one auto-pipeline in flight per node, so concurrent small scripts make app and server take turns; and on a
 *   cluster an auto-pipelined batch holds many slots and is retried on a redirection only when all of it failed the
 *   same way. Sent alone, a script gets ioredis' MOVED/ASK/TRYAGAIN handling within the command deadline.
 * - Batched scripts ({@link runBatched}) share one EVALSHA per turn; reads ({@link read}) share one MGET per turn on
 *   a single server. Every other command sends the reads waiting for the end of the turn first, so a read issued
 *   before a write is never answered after it.
 * - Plain commands ({@link call}) follow the client's own pipelining; on a cluster, one refused because its
 *   auto-pipelined batch mixed slots is sent again alone (it did not run, so this is safe for writes too).
 */
export class RedisExecutor {
  private static readonly executors = new WeakMap<RedisClient, RedisExecutor>();
  /**
   * The configured name of this executor's connection, which outage errors name (set when the module opens the
   * connection). Without it they name the server's address.
   */
  connection?: string;
  /** Called when a command of this connection timed out (its connection's metrics count them). */
  onTimeout?: () => void;
  /**
   * The last configuration refusal of this connection (NOPERM, an unknown command, WRONGTYPE …), until a later call
   * of the same command succeeds: health reports the connection down with it.
   */
  lastRefusal?: RedisRefusedError;
  private readonly isCluster: boolean;
  private readonly batches: ScriptBatches;
  private readonly reads?: ReadBatches;

  private constructor(readonly client: RedisClient) {
    this.isCluster = (client as Cluster).isCluster === true;
    this.batches = new ScriptBatches(this.isCluster, this.sendBatch);
    if (!this.isCluster)
      this.reads = new ReadBatches((keys) =>
        keys.length === 1 ? this.call<string | null>('get', keys[0]).then((v) => [v]) : this.call('mget', keys),
      );
  }

  /** The executor of a client (one per client, so batches of every caller on that connection are shared). */
  static of(client: RedisClient): RedisExecutor {
    let executor = RedisExecutor.executors.get(client);
    if (!executor) RedisExecutor.executors.set(client, (executor = new RedisExecutor(client)));
    return executor;
  }

  /**
   * Runs a script: one EVALSHA (one round trip). `keys` must hold exactly `numberOfKeys` keys, all in one slot on a
   * cluster (build them with `KeyBuilder.slotGroup`).
   */
  run<TResult>(script: RedisScript<TResult>, keys: readonly string[], args: readonly RedisArg[]): Promise<TResult> {
    if (keys.length !== script.numberOfKeys) {
      return Promise.reject(new TypeError(`Script ${script.name} expects ${script.numberOfKeys} keys, got ${keys.length}.`));
    }
    this.reads?.flush();
    return this.evalsha<TResult>(script, [keys.length, keys, args]);
  }

  /**
   * Runs one item of a batched script: items submitted in the same event-loop turn to the same script (on a
   * cluster, the same slot) go to Redis together. Resolves with the item's own reply; rejects with the item's own
   * error, or with the batch's (timeout, connection lost), which every item of that batch then shares.
   */
  runBatched<TItem>(script: BatchedScript<TItem>, keys: readonly string[], args: readonly RedisArg[]): Promise<TItem> {
    const mismatch = shapeMismatch(script, keys, args);
    if (mismatch) return Promise.reject(new TypeError(mismatch));
    return this.batches.add(script, keys, args);
  }

  /**
   * Runs one item of a batched script followed by `WAIT replicas timeoutMs` on the same connection (WAIT counts
   * the replicas that acknowledged this connection's writes): one round trip plus the replication delay.
   * Resolves with the item's reply and the number of replicas that acknowledged, or WAIT's error (the script ran:
   * its effects stay, and the caller decides what to undo); rejects with the script's error.
   */
  async runThenWait<TItem>(
    script: BatchedScript<TItem>,
    keys: readonly string[],
    args: readonly RedisArg[],
    replicas: number,
    timeoutMs: number,
  ): Promise<{ reply: TItem; acks: number; waitError?: Error }> {
    const batch = batchOfOne(script, keys, args);
    this.reads?.flush();
    const send = (command: 'evalsha' | 'eval') =>
      this.client
        .pipeline()
        .call(command, command === 'eval' ? script.lua : script.sha, ...batch)
        .call('wait', replicas, timeoutMs)
        .exec() as Promise<Array<[Error | null, unknown]>>;
    const sent = (command: 'evalsha' | 'eval') =>
      send(command).catch((error: unknown) => {
        throw this.failed(command, error);
      });
    let [[scriptError, replies], [waitError, acks]] = await sent('evalsha');
    if (isNoScript(scriptError)) [[scriptError, replies], [waitError, acks]] = await sent('eval');
    if (scriptError) throw this.failed('evalsha', scriptError);
    const [reply] = replies as unknown[];
    if (reply instanceof Error) throw this.failed('evalsha', reply);
    // A refusal of WAIT is the caller's to judge (the script ran); an outage gets the library's wording.
    if (waitError)
      return { reply: reply as TItem, acks: 0, waitError: outageReason(waitError) ? (this.failed('wait', waitError) as Error) : waitError };
    return { reply: reply as TItem, acks: Number(acks) };
  }

  /** GET; on a single server the reads of one event-loop turn share one MGET. */
  read(key: string): Promise<string | null> {
    return this.reads ? this.reads.add(key) : this.call<string | null>('get', key);
  }

  /** Several GETs: one MGET on a single server; per-key GETs on a cluster, where each key may have its own slot. */
  readMany(keys: readonly string[]): Promise<Array<string | null>> {
    if (keys.length === 0) return Promise.resolve([]);
    if (this.isCluster) return Promise.all(keys.map((key) => this.read(key)));
    return this.call('mget', keys);
  }

  /** A plain command (`name` as Redis spells it); array arguments are flattened into the command. */
  call<TReply>(name: string, ...args: Array<RedisArg | readonly RedisArg[]>): Promise<TReply> {
    this.reads?.flush();
    const reply = this.client.call(name, ...(args as RedisArg[])) as Promise<TReply>;
    if (!this.isCluster) return this.settled(name, reply);
    return this.settled(
      name,
      reply.catch((error: unknown) => {
        if (!wasRefused(error)) throw error;
        return this.alone<TReply>(name, args);
      }),
    );
  }

  /**
   * {@link call} with the reply as Buffers, for binary values (HyperLogLog registers) that a utf8 reply would
   * corrupt. Always sent on its own: ioredis' auto-pipelining drops the command name of `callBuffer`
   * (redis/ioredis#1923), and a command sent alone is never refused for sharing a batch with other slots.
   */
  callBuffer<TReply>(name: string, ...args: Array<RedisArg | readonly RedisArg[]>): Promise<TReply> {
    this.reads?.flush();
    return this.settled(name, this.alone<TReply>(name, args, BINARY));
  }

  private readonly sendBatch = (batch: PendingBatch): void => {
    let sent: Promise<unknown[]>;
    try {
      sent = this.evalsha<unknown[]>(batch.script, [batch.keys.length, batch.keys, batch.args]);
    } catch (error) {
      sent = Promise.reject(error);
    }
    sent.then(
      (replies) => settleBatch(batch, replies, (error) => this.failed('evalsha', error)),
      (error: unknown) => failBatch(batch, error),
    );
  };

  // NOSCRIPT means the script did not run: sending its text is safe for writes too.
  private evalsha<TReply>(script: { sha: string; lua: string }, keysAndArgs: ReadonlyArray<unknown>): Promise<TReply> {
    return this.settled(
      'evalsha',
      this.alone<TReply>('evalsha', [script.sha, ...keysAndArgs]).catch((error: unknown) => {
        if (!isNoScript(error)) throw error;
        return this.alone<TReply>('eval', [script.lua, ...keysAndArgs]);
      }),
    );
  }

  // Every command's reply passes here: the one place that sees a command go without its reply — its deadline
  // expired, or its connection closed first (the socket is dropped just before the deadline when the server stays
  // silent, and ioredis then fails what awaited a reply with MaxRetriesPerRequestError), or it could not be sent —
  // and the one place that tells a configuration refusal (NOPERM, unknown command, WRONGTYPE) from an outage, for
  // every pattern.
  private settled<TReply>(command: string, reply: Promise<TReply>): Promise<TReply> {
    const onError = (error: unknown): never => {
      throw this.failed(command, error);
    };
    // The success handler only matters while a refusal is recorded: without one, a reply costs no extra callback.
    if (this.lastRefusal === undefined) return reply.catch(onError);
    return reply.then((value) => {
      if (this.lastRefusal?.command === command) this.lastRefusal = undefined;
      return value;
    }, onError);
  }

  /**
   * What a failed command rejects with: an outage (no answer, or no connection to send it on) becomes
   * {@link RedisUnavailableError} naming the connection, configuration replies become {@link RedisRefusedError};
   * anything else (a script's error, a reply) is returned unchanged.
   */
  failed(command: string, error: unknown): unknown {
    if (error instanceof RedisUnavailableError) return error;
    const reason = outageReason(error);
    if (reason !== undefined) {
      const unavailable = new RedisUnavailableError(this.connection ?? addressOf(this.client), command, reason, {
        timeoutMs: commandTimeoutOf(this.client),
        reconnecting: this.client.status !== 'end',
        cause: error,
      });
      if (unavailable.mayHaveRun) this.onTimeout?.();
      return unavailable;
    }
    const classified = RedisRefusedError.from(command, error);
    if (classified instanceof RedisRefusedError) this.lastRefusal = classified;
    return classified;
  }

  // Straight to the connection: no auto-pipeline, whatever the client's options.
  private alone<TReply>(name: string, args: ReadonlyArray<unknown>, encoding: ReplyEncoding = UTF8): Promise<TReply> {
    return this.client.sendCommand(new Command(name, args as RedisArg[], encoding)) as Promise<TReply>;
  }
}

/** Where a connection the module did not name points: its address (never credentials). */
function addressOf(client: RedisClient): string {
  if ((client as Cluster).isCluster === true) return 'cluster';
  const { host, port, sentinels, name } = (client as Redis).options;
  return sentinels?.length ? `sentinel:${name}` : `${host ?? '127.0.0.1'}:${port ?? 6379}`;
}

/** The client's command deadline (a cluster's is its nodes'), when it has one. */
function commandTimeoutOf(client: RedisClient): number | undefined {
  const options = (client as Cluster).isCluster === true ? (client as Cluster).options.redisOptions : (client as Redis).options;
  return options?.commandTimeout;
}

function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}
