/**
 * Calls per shared command at most. Small batches keep several in flight at once, so the app builds the next batch
 * while Redis runs the previous one (measured on 2 cores with 32 concurrent callers: 8 calls ≈ 2.5× one script per
 * call; 32 in one batch is slower than 8, because app and server then take turns).
 */
export const MAX_BATCH_ITEMS = 8;

/**
 * Calls a connection may have awaiting their replies before further calls wait and coalesce. Below it a call is
 * written at once, so a lone or moderate caller pays no extra event-loop turn; at it, client and server already
 * overlap, and further calls share commands instead of adding one each. A batch counts each call it carries: counted
 * per command, 64 callers in batches of 8 would be 8 commands in flight, at the window, and half the calls would go
 * alone. Measured: bench/results/io-path.txt (bench/results/PROFILES.md).
 */
export const IN_FLIGHT_WINDOW = 8;

type RedisArg = string | number | Buffer;

/** A waiting call: what it sends and how it is settled. */
export interface WaitingCall {
  readonly keys: readonly string[];
  readonly args: readonly RedisArg[];
  resolve(reply: unknown): void;
  reject(error: unknown): void;
}

/** Calls that wait together and leave as one command: the same script (on a cluster, for the same master), or reads. */
export interface WaitingGroup<TKind> {
  readonly kind: TKind;
  readonly calls: WaitingCall[];
}

/**
 * The count of a connection's calls awaiting their reply: every command written is reported with the calls it
 * carries (a batch counts each of its calls), and so is its answer.
 */
export interface ReplyWindow {
  /** Calls awaiting their reply. */
  readonly outstanding: number;
  sent(calls: number): void;
  answered(calls: number): void;
}

/**
 * The adaptive part of the one I/O path: counts the replies a connection has outstanding and, while they are at
 * {@link IN_FLIGHT_WINDOW} or more, gathers calls into groups that leave at the end of the event-loop turn
 * (setImmediate, not the next tick: a turn runs the callbacks of every socket that became readable, so the calls of
 * requests read in one turn share a group) or as soon as a group holds {@link MAX_BATCH_ITEMS} calls.
 *
 * Order: calls of one group reach the server in submission order, and a call is written at once only when nothing
 * waits ({@link open}), so it never overtakes an earlier call.
 */
export class CoalescingQueue<TKind> implements ReplyWindow {
  private inFlight = 0;
  private readonly waiting = new Map<string, WaitingGroup<TKind>>();
  private flushScheduled = false;

  constructor(
    private readonly sendGroup: (group: WaitingGroup<TKind>) => void,
    private readonly window = IN_FLIGHT_WINDOW,
  ) {}

  /** Whether a call may be written now: few replies outstanding and no call waiting ahead of it. */
  get open(): boolean {
    return this.inFlight < this.window && this.waiting.size === 0;
  }

  get outstanding(): number {
    return this.inFlight;
  }

  /** A command carrying `calls` calls was written. */
  sent(calls: number): void {
    this.inFlight += calls;
  }

  /** A command carrying `calls` calls was answered (or failed). */
  answered(calls: number): void {
    this.inFlight -= calls;
  }

  /** Queues a call in the group `groupKey` (opened with `kind` when it is the group's first call). */
  add<TReply>(groupKey: string, kind: TKind, keys: readonly string[], args: readonly RedisArg[]): Promise<TReply> {
    let group = this.waiting.get(groupKey);
    if (!group) {
      group = { kind, calls: [] };
      this.waiting.set(groupKey, group);
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(this.flushAtEndOfTurn);
      }
    }
    const target = group;
    const reply = new Promise<TReply>((resolve, reject) =>
      target.calls.push({ keys, args, resolve: resolve as (reply: unknown) => void, reject }),
    );
    if (target.calls.length >= MAX_BATCH_ITEMS) {
      this.waiting.delete(groupKey);
      this.sendGroup(target);
    }
    return reply;
  }

  /** Sends every waiting group now, in the order the groups were opened (before a command that must follow them). */
  readonly flush = (): void => {
    if (this.waiting.size === 0) return;
    const groups = [...this.waiting.values()];
    this.waiting.clear();
    for (const group of groups) this.sendGroup(group);
  };

  private readonly flushAtEndOfTurn = (): void => {
    this.flushScheduled = false;
    this.flush();
  };
}

/**
 * Settles each call of a shared command with its own entry of the reply: a value resolves it, an error reply goes to
 * `onError` (that call alone failed), and a call the reply has no entry for fails naming the command's `name`.
 */
export function settleEach(
  name: string,
  calls: readonly WaitingCall[],
  replies: readonly unknown[],
  onError: (call: WaitingCall, error: Error) => void,
): void {
  for (let i = 0; i < calls.length; i++) {
    const reply = replies[i];
    if (reply instanceof Error) onError(calls[i], reply);
    else if (i < replies.length) calls[i].resolve(reply);
    else calls[i].reject(new Error(`${name} answered ${replies.length} of ${calls.length} calls.`));
  }
}
