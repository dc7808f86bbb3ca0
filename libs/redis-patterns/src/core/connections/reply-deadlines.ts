import type { Redis } from 'ioredis';
import { silentSocketDeadlineMs } from './fail-fast-defaults';

/** The part of an ioredis command the sweep settles. */
interface AwaitedCommand {
  readonly isSettled: boolean;
  reject(error: Error): void;
}

/** ioredis' queue of the commands written to a connection and awaiting their replies, oldest first. */
interface ReplyQueue {
  readonly length: number;
  peekAt(index: number): { readonly command: AwaitedCommand } | undefined;
}

/** The deadline kept on each connection that has one here. */
const DEADLINES = new WeakMap<Redis, ReplyDeadlines>();

/** Time between two sweeps while replies are owed, in ms: how late a deadline may be noticed at most. */
const SWEEP_INTERVAL_MS = 5;

/**
 * The command deadline of an owned single-server connection (a single server, a Sentinel group's master), kept by one
 * sweep of the connection's reply queue rather than by ioredis' `commandTimeout` and `socketTimeout`, which arm a
 * timer per command and a `data` listener per command written to an idle socket: 5–9% of the rate of one EVALSHA per
 * call at 1 to 64 callers, where the sweep measured 0–4% (bench/results/reply-deadlines.txt). A cluster's nodes keep
 * ioredis' pair: ioredis creates them and gives each an offline queue, which the sweep does not see.
 *
 * The two rules are theirs, noticed within one sweep interval and never early:
 * - a connection silent while replies are owed for just under the deadline (the oldest awaited reply has not come
 *   for that long) has its socket dropped, with ioredis' own "Socket timeout" error: every command awaiting a reply
 *   fails at once (no resend, `maxRetriesPerRequest: 0`), and the client reconnects;
 * - a command still unanswered `deadlineMs` after it was written fails with ioredis' own "Command timed out" (its late
 *   reply, if any, is then discarded), even while earlier replies keep arriving.
 *
 * The sweep runs only while replies are owed: the first command written to an idle connection arms it, and a sweep
 * that finds the queue empty stops. Ages are taken from the first sweep that sees a command (or a head), so they
 * are never longer than the truth, and nothing is kept per command: a sweep marks the newest command awaited.
 */
export class ReplyDeadlines {
  /**
   * What each sweep found written, oldest first: every command up to `last` (the newest awaited then) was written by
   * `at`. A command's age is taken from the first mark that covers it, with no bookkeeping per command.
   */
  private readonly marks: Array<{ readonly at: number; readonly last: AwaitedCommand }> = [];
  private readonly silentMs: number;
  private timer?: NodeJS.Timeout;
  private head?: AwaitedCommand;
  private headSince = 0;

  private constructor(
    private readonly client: Redis,
    /** The command deadline kept on this connection, in ms. */
    readonly deadlineMs: number,
  ) {
    this.silentMs = silentSocketDeadlineMs(deadlineMs);
  }

  /** Keeps `deadlineMs` on every command `client` sends from now on. */
  static keep(client: Redis, deadlineMs: number): ReplyDeadlines {
    const deadlines = new ReplyDeadlines(client, deadlineMs);
    DEADLINES.set(client, deadlines);
    const send = client.sendCommand;
    // Every command ioredis writes passes here, pipelines and the connection's own handshake included.
    client.sendCommand = function sendWithDeadline(this: Redis, command, stream) {
      if (deadlines.timer === undefined) deadlines.arm();
      return send.call(this, command, stream);
    } as Redis['sendCommand'];
    return deadlines;
  }

  /** The deadline kept on `client` by this sweep, if it has one. */
  static of(client: Redis): ReplyDeadlines | undefined {
    return DEADLINES.get(client);
  }

  /** Whether a sweep is due (replies were owed at the last look). */
  get sweeping(): boolean {
    return this.timer !== undefined;
  }

  private arm(): void {
    this.timer = setTimeout(this.sweep, SWEEP_INTERVAL_MS);
    // Never what keeps a process alive: a command awaiting its reply keeps the socket (and so the process) open.
    this.timer.unref();
  }

  private readonly sweep = (): void => {
    this.timer = undefined;
    const queue = (this.client as unknown as { commandQueue: ReplyQueue }).commandQueue;
    const now = performance.now();
    if (queue.length === 0) {
      this.head = undefined;
      this.marks.length = 0;
      return;
    }
    const head = queue.peekAt(0)!.command;
    if (head !== this.head) {
      // A reply came since the last sweep (replies arrive in order, so the head moved): the silence starts now.
      this.head = head;
      this.headSince = now;
    } else if (now - this.headSince >= this.silentMs) {
      this.dropSocket();
      return;
    }
    // Replies settle commands in the order they were written: the marks whose newest command is answered lead the
    // list, and cover nothing awaited any more. (A command this sweep failed is settled but still queued; its mark
    // was taken off when it expired.)
    while (this.marks.length > 0 && this.marks[0].last.isSettled) this.marks.shift();
    const last = queue.peekAt(queue.length - 1)!.command;
    if (this.marks.at(-1)?.last !== last) this.marks.push({ at: now, last });
    while (this.marks.length > 0 && now - this.marks[0].at >= this.deadlineMs) this.failUpTo(queue, this.marks.shift()!.last);
    this.arm();
  };

  /** Fails every command still awaited from the oldest up to `last` (none when `last` was answered: it left the queue). */
  private failUpTo(queue: ReplyQueue, last: AwaitedCommand): void {
    let end = -1;
    for (let i = 0; i < queue.length && end < 0; i++) if (queue.peekAt(i)!.command === last) end = i;
    for (let i = 0; i <= end; i++) {
      const { command } = queue.peekAt(i)!;
      if (!command.isSettled) command.reject(new Error('Command timed out'));
    }
  }

  private dropSocket(): void {
    this.head = undefined;
    const stream = (this.client as unknown as { stream?: { destroy(error: Error): void } }).stream;
    stream?.destroy(new Error(`Socket timeout. Expecting data, but didn't receive any in ${this.silentMs}ms.`));
  }
}
