import type { Cluster, Redis } from 'ioredis';

/** The part of a socket that holds writes back (Node's Writable). */
interface HeldStream {
  readonly writableCorked: number;
  cork(): void;
  uncork(): void;
}

/**
 * The commands a turn writes to a connection while it awaits other replies, leaving together:
 * {@link WRITES_PER_SOCKET_WRITE} per socket write (`writev`) instead of one write each. The second half of the
 * adaptive I/O path (the first is `coalescing-queue.ts`): below the window of outstanding replies every call is its
 * own command, written in the turn it is made, and the calls a burst of replies released share their socket writes.
 * On 2 cores a socket write is about half the client's busy time per command, so sharing it pays from a few callers
 * on, where batching the calls would make client and server take turns (bench/results/io-path.txt). Each command is
 * still its own: the server runs and answers each, and on a cluster each keeps its own redirections.
 *
 * Writes are held with the socket's own `cork()` and released at the end of the tick (`process.nextTick`: after
 * every microtask the turn queued, before the event loop moves on). The executor holds a write only while other
 * replies are awaited on its connection: a lone caller's write, which nothing would share, goes at once.
 */
class TurnWrites {
  private held?: HeldStream;
  private count = 0;
  private releaseScheduled = false;

  constructor(private readonly client: Redis) {}

  hold(): void {
    const stream = this.client.stream as unknown as HeldStream | undefined;
    // Not ready: the command goes to the offline queue, not the socket. Corked by someone else: left alone.
    if (this.client.status !== 'ready' || !stream || (stream !== this.held && stream.writableCorked > 0)) return;
    // The first commands of a long turn leave before the turn ends, so the server starts on them while the client
    // is still writing the rest: held to the end, 16 and 64 callers lost that overlap (io-path.txt).
    if (this.count === WRITES_PER_SOCKET_WRITE) this.release();
    if (this.held === undefined) {
      stream.cork();
      this.held = stream;
      if (!this.releaseScheduled) {
        this.releaseScheduled = true;
        process.nextTick(this.releaseAtEndOfTick);
      }
    }
    this.count++;
  }

  private release(): void {
    const stream = this.held;
    this.held = undefined;
    this.count = 0;
    stream?.uncork();
  }

  private readonly releaseAtEndOfTick = (): void => {
    this.releaseScheduled = false;
    this.release();
  };
}

/** Commands per socket write at most (see {@link holdTurnWrites}); measured in bench/results/io-path.txt. */
export const WRITES_PER_SOCKET_WRITE = 4;

const turns = new WeakMap<Redis, TurnWrites>();

/**
 * Holds the next command written to `client` until the end of the tick, with the other commands the turn writes to
 * it (at most {@link WRITES_PER_SOCKET_WRITE} per socket write). A cluster client is not a socket: its node clients
 * are held one by one.
 */
export function holdTurnWrites(client: Redis | Cluster): void {
  if ((client as Cluster).isCluster === true) return;
  let turn = turns.get(client as Redis);
  if (!turn) turns.set(client as Redis, (turn = new TurnWrites(client as Redis)));
  turn.hold();
}
