import type { Cluster, Redis } from 'ioredis';
import { alone, BINARY, isNoScript } from './command-wire';
import { CommandFailures } from './command-failures';
import { CoalescingQueue, type ReplyWindow } from './coalescing-queue';
import { type GroupSender, sendLaneGroup, sendServerGroup, type ServerGroupKind } from './group-senders';
import { NodeLanes } from './node-lanes';
import { holdTurnWrites } from './turn-writes';
import { type RedisScript, type ScriptText, shapeMismatch } from './redis-script';
import { livenessOf, type ServerLiveness } from '../connections/connection-liveness';
import { wasRefused } from './was-refused';

type RedisArg = string | number | Buffer;
type RedisClient = Redis | Cluster;

/**
 * The one way the library sends commands to a Redis connection: scripts, batching, ordering, deadlines and the
 * cluster retry live here, once, and every failure is judged by {@link CommandFailures}
 * (docs/architecture.md, "One executor").
 *
 * - Scripts go as EVALSHA of their content hash, and as EVAL after a NOSCRIPT; nothing is defined on the client.
 * - Adaptive batching ({@link CoalescingQueue}): below the window of outstanding replies a call is written at once;
 *   beyond it, the calls of one turn share one EVALSHA of the batch form (one MGET for reads on a single server), on
 *   a cluster per master. A command that cannot share sends the waiting calls first.
 * - Scripts never go through ioredis auto-pipelining (one pipeline in flight per node makes app and server take
 *   turns, and a cluster pipeline mixing slots is not retried on a redirection); plain commands ({@link call})
 *   follow the client's pipelining, and one refused for mixing slots is sent again alone (it did not run).
 */
export class RedisExecutor {
  private static readonly executors = new WeakMap<RedisClient, RedisExecutor>();
  /** How this connection's failed commands are judged: its name in outage errors, its timeouts, its last refusal. */
  readonly failures: CommandFailures;
  /** Whether the server of a key answers: the calls for a server known down fail at once, unsent; the others go. */
  private readonly liveness: ServerLiveness;
  /** The server of a call that names none: the connection's one server; none on a cluster. */
  private readonly home: string | undefined;
  private readonly isCluster: boolean;
  private readonly queue: CoalescingQueue<ServerGroupKind>;
  /** On a cluster, one lane per master: calls coalesce per node. */
  private readonly lanes?: NodeLanes;
  /** Whether the servers take the cross-slot batch form (Redis 7+; a 6.2 cluster refuses its `#!lua` line). */
  private crossSlotBatches = true;
  private readonly scriptReplies = new WeakMap<ReplyWindow, ScriptReplyHandlers>();

  private constructor(readonly client: RedisClient) {
    this.isCluster = (client as Cluster).isCluster === true;
    const sender: GroupSender = {
      evalsha: (script, keys, args, queue, target, calls, node) => this.evalsha(script, keys, args, queue, target, calls, node),
      get: (key) => this.call('get', key),
      mget: (keys) => this.settled('mget', this.client.call('mget', ...keys) as Promise<unknown[]>, keys.length),
      failed: (command, error) => this.failures.failed(command, error),
      crossSlotRefused: () => (this.crossSlotBatches = false),
    };
    this.queue = new CoalescingQueue<ServerGroupKind>((group) => sendServerGroup(sender, group));
    if (this.isCluster) this.lanes = new NodeLanes(client as Cluster, (lane, group) => sendLaneGroup(sender, lane, group));
    this.liveness = livenessOf(client);
    this.home = this.liveness.serverOf();
    this.failures = new CommandFailures(client, this.liveness, this.home);
  }

  /**
   * While the server of `key` (see {@link ServerLiveness.serverOf}) is known not to answer, the error that took it
   * down: a call for it would fail at once. Patterns read it to apply their outage policy without building a call.
   */
  outageFor(key?: string): unknown {
    return this.liveness.causeOf(this.liveness.serverOf(key));
  }

  /** The executor of a client (one per client, so the calls of every caller on that connection coalesce). */
  static of(client: RedisClient): RedisExecutor {
    let executor = RedisExecutor.executors.get(client);
    if (!executor) RedisExecutor.executors.set(client, (executor = new RedisExecutor(client)));
    return executor;
  }

  /**
   * Runs one call of a script: alone (one EVALSHA, or a command script's command) while the connection has few
   * replies outstanding, otherwise with the other calls of the script waiting in this turn (on a cluster, those for
   * the same master). `keys` must fit
   * the script's shape and share one slot on a cluster (`KeyBuilder.slotGroup`). Resolves with the call's own reply;
   * rejects with its own error, or with its command's (timeout, connection lost), shared by the calls of a batch.
   */
  run<TReply>(script: RedisScript<TReply>, keys: readonly string[], args: readonly RedisArg[]): Promise<TReply> {
    const mismatch = shapeMismatch(script, keys, args);
    if (mismatch) return Promise.reject(new TypeError(mismatch));
    const server = this.liveness.serverOf(keys[0]);
    if (this.liveness.causeOf(server) !== undefined) return this.unsent('evalsha', server);
    if (this.lanes) {
      // On a cluster, calls coalesce per master (see NodeLanes.writesAtOnce); a call whose master is not known yet goes
      // alone.
      const lane = server !== undefined && this.crossSlotBatches ? this.lanes.at(server) : undefined;
      if (lane && !this.lanes.writesAtOnce(lane)) return lane.queue.add<TReply>(script.commandName, script, keys, args);
      if (script.command) return this.send<TReply>(script.command, [keys, args], server);
      return this.evalsha<TReply>(script.single, keys, args, lane?.queue, undefined, 1, server);
    }
    if (!this.queue.open) return this.queue.add<TReply>(script.commandName, script, keys, args);
    return script.command ? this.send<TReply>(script.command, [keys, args]) : this.evalsha<TReply>(script.single, keys, args);
  }

  /**
   * Runs one call of a script followed by `WAIT replicas timeoutMs` on the same connection (WAIT counts the replicas
   * that acknowledged this connection's writes): one round trip plus the replication delay. Resolves with the
   * call's reply and the number of replicas that acknowledged, or WAIT's error (the script ran: its effects stay,
   * and the caller decides what to undo); rejects with the script's error.
   */
  async runThenWait<TReply>(
    script: RedisScript<TReply>,
    keys: readonly string[],
    args: readonly RedisArg[],
    replicas: number,
    timeoutMs: number,
  ): Promise<{ reply: TReply; acks: number; waitError?: Error }> {
    const mismatch = shapeMismatch(script, keys, args);
    if (mismatch) throw new TypeError(mismatch);
    const server = this.liveness.serverOf(keys[0]);
    if (this.liveness.causeOf(server) !== undefined) return this.unsent('eval', server);
    this.flushWaiting();
    // EVAL, not EVALSHA: WAIT must follow the script in the same pipeline, so a NOSCRIPT cannot be answered by
    // sending the script again after it. The server caches the text; WAIT's replication delay dwarfs hashing it.
    const pipeline = this.client
      .pipeline()
      .call('eval', script.single.lua, keys.length, ...keys, ...args)
      .call('wait', replicas, timeoutMs);
    const replies = (await this.settled('eval', pipeline.exec(), 1, server)) as Array<[Error | null, unknown]>;
    const [[scriptError, reply], [waitError, acks]] = replies;
    if (scriptError) throw this.failures.failed('eval', scriptError, server);
    // WAIT's error is the caller's to judge (the script ran: its effects stay), classified as any other: an outage
    // in the library's wording, a configuration reply (an ACL without WAIT) as a RedisRefusedError.
    if (waitError) return { reply: reply as TReply, acks: 0, waitError: this.failures.failed('wait', waitError) as Error };
    this.answered('wait', server);
    return { reply: reply as TReply, acks: Number(acks) };
  }

  /** GET; on a single server, reads that wait behind outstanding replies share one MGET. */
  read(key: string): Promise<string | null> {
    const server = this.liveness.serverOf(key);
    if (this.liveness.causeOf(server) !== undefined) return this.unsent('get', server);
    if (this.isCluster || this.queue.open) return this.send<string | null>('get', [key], server);
    return this.queue.add<string | null>('read', 'read', [key], []);
  }

  /** Several GETs: one MGET on a single server; per-key GETs on a cluster, where each key may have its own slot. */
  readMany(keys: readonly string[]): Promise<Array<string | null>> {
    if (keys.length === 0) return Promise.resolve([]);
    if (this.isCluster) return Promise.all(keys.map((key) => this.read(key)));
    return this.call('mget', keys);
  }

  /** A plain command (`name` as Redis spells it); array arguments are flattened into the command. */
  call<TReply>(name: string, ...args: Array<RedisArg | readonly RedisArg[]>): Promise<TReply> {
    if (this.liveness.causeOf(this.home) !== undefined) return this.unsent(name, this.home);
    return this.send<TReply>(name, args);
  }

  /**
   * {@link call} with the reply as Buffers, for binary values (HyperLogLog registers) that a utf8 reply would
   * corrupt. Always sent on its own: ioredis' auto-pipelining drops the command name of `callBuffer`
   * (redis/ioredis#1923), and a command sent alone is never refused for sharing a batch with other slots.
   */
  callBuffer<TReply>(name: string, ...args: Array<RedisArg | readonly RedisArg[]>): Promise<TReply> {
    if (this.liveness.causeOf(this.home) !== undefined) return this.unsent(name, this.home);
    this.flushWaiting();
    return this.settled(name, alone<TReply>(this.client, name, args, BINARY));
  }

  // A plain command after the calls waiting before it; `node` is the server it is for, when known.
  private send<TReply>(name: string, args: Array<RedisArg | readonly RedisArg[]>, node = this.home): Promise<TReply> {
    this.flushWaiting();
    this.shareWrite(this.queue, this.client, 0);
    const reply = this.client.call(name, ...(args as RedisArg[])) as Promise<TReply>;
    // On a cluster, one refused for sharing an auto-pipelined batch with other slots did not run: sent again alone.
    const sent = this.isCluster
      ? reply.catch((error: unknown) => (wasRefused(error) ? alone<TReply>(this.client, name, args) : Promise.reject(error)))
      : reply;
    return this.settled(name, sent, 1, node);
  }

  // The one script path. NOSCRIPT means the script did not run: sending its text is safe for writes too. One reply
  // handler (no wrapper promise per layer): a lone call costs what a hand-written EVALSHA does. `queue` counts the
  // reply in its connection's window; `target` is a cluster node for a cross-slot batch; `node` the server the call
  // is for, whose liveness its outcome updates.
  private evalsha<TReply>(
    script: ScriptText,
    keys: readonly string[],
    args: readonly RedisArg[],
    queue: ReplyWindow = this.queue,
    target: RedisClient = this.client,
    calls = 1,
    node = this.home,
  ): Promise<TReply> {
    const argv: RedisArg[] = [script.sha, keys.length];
    for (const key of keys) argv.push(key);
    for (const arg of args) argv.push(arg);
    // One-call handlers are made once per window, except for the shared window of a cluster (calls of every master).
    const { answered, failed } = (
      calls === 1 && (node === this.home || queue !== this.queue)
        ? this.oneCallReplies(queue, node)
        : this.replyHandlers(queue, calls, node)
    ) as ScriptReplyHandlers<TReply>;
    queue.sent(calls);
    this.shareWrite(queue, target, calls);
    return alone<TReply>(target, 'evalsha', argv).then(answered, (error: unknown) => {
      if (!isNoScript(error)) return failed(error);
      const withText = argv.slice();
      withText[0] = script.lua;
      return alone<TReply>(target, 'eval', withText).then(answered, failed);
    });
  }

  // The reply handlers of a one-call command, made once per window: no closure per call.
  private oneCallReplies(queue: ReplyWindow, node: string | undefined): ScriptReplyHandlers {
    let handlers = this.scriptReplies.get(queue);
    if (!handlers) this.scriptReplies.set(queue, (handlers = this.replyHandlers(queue, 1, node)));
    return handlers;
  }

  private replyHandlers(queue: ReplyWindow, calls: number, node: string | undefined): ScriptReplyHandlers {
    return {
      answered: (value) => {
        queue.answered(calls);
        this.answered('evalsha', node);
        return value;
      },
      failed: (error) => {
        queue.answered(calls);
        throw this.failures.failed('evalsha', error, node);
      },
    };
  }

  // Holds a write (turn-writes.ts) only while `window` awaits other replies than its `counted` calls: a lone one goes.
  private shareWrite(window: ReplyWindow, socket: RedisClient, counted: number): void {
    if (window.outstanding > counted) holdTurnWrites(socket);
  }

  // Sends every waiting call (before a command that must not overtake them).
  private flushWaiting(): void {
    this.queue.flush();
    this.lanes?.flush();
  }

  // Every other command's reply passes here. With the script path above, the one place that counts the replies
  // outstanding (adaptive batching reads it) and sees every command fail (judged by CommandFailures), for every pattern.
  private settled<TReply>(command: string, reply: Promise<TReply>, calls = 1, node = this.home): Promise<TReply> {
    const queue = this.queue;
    queue.sent(calls);
    return reply.then(
      (value) => {
        queue.answered(calls);
        this.answered(command, node);
        return value;
      },
      (error: unknown): never => {
        queue.answered(calls);
        throw this.failures.failed(command, error, node);
      },
    );
  }

  // A reply came (from server `node`, when known): it answers, and a refusal of its command is over.
  private answered(command: string, node: string | undefined): void {
    this.liveness.answered(node);
    if (this.failures.lastRefusal?.command === command) this.failures.lastRefusal = undefined;
  }

  // A call refused while its server is down: never sent.
  private unsent<TReply>(command: string, server: string | undefined): Promise<TReply> {
    return Promise.reject(this.failures.unsent(command, server));
  }
}

interface ScriptReplyHandlers<TReply = unknown> {
  answered(value: TReply): TReply;
  failed(error: unknown): never;
}
