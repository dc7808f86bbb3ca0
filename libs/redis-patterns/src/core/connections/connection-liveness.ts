import type { Redis } from 'ioredis';

/**
 * One view per connection of whether its server answers, which every pattern reads through the executor: a command
 * that went without an answer (its deadline passed, its socket closed, or it could not be sent) marks the connection
 * down; a reply, the client's `ready` event or a background probe marks it up again.
 *
 * While it is down the executor fails calls at once (`RedisUnavailableError`, never sent), so during an outage each
 * pattern applies its own policy — fail open, fail closed, fall back — without every caller first paying a command
 * deadline, and nothing piles up in a frozen server's socket to be applied when it comes back. The probe runs every
 * {@link PROBE_MS} while down only, on the client itself (not through the executor, which would refuse it), and no
 * call is spent finding out.
 */
export class ConnectionLiveness {
  private down = false;
  private timer?: NodeJS.Timeout;
  private downCause?: unknown;

  constructor(
    private readonly probe: () => Promise<unknown>,
    private readonly ended: () => boolean,
  ) {}

  /** The view of a single-server or Sentinel client: probed with PING, over when the client ends, up at `ready`. */
  static watching(client: Redis): ConnectionLiveness {
    const liveness = new ConnectionLiveness(
      () => client.ping(),
      () => client.status === 'end',
    );
    client.on('ready', () => liveness.cameBack());
    return liveness;
  }

  /** True from a command that went unanswered until the server answers again. */
  get isDown(): boolean {
    return this.down;
  }

  /** The error of the command that took the connection down, while it is down. */
  get cause(): unknown {
    return this.down ? this.downCause : undefined;
  }

  /** A command went without an answer (`cause`): fail the next calls at once and probe until the server answers. */
  wentDown(cause: unknown): void {
    if (this.down || this.ended()) return;
    this.down = true;
    this.downCause = cause;
    this.schedule();
  }

  /** The server answered (a reply, the connection's `ready`, or the probe). */
  cameBack(): void {
    if (!this.down) return;
    this.down = false;
    this.downCause = undefined;
    clearTimeout(this.timer);
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      // A closed client never comes back: stop probing, and stop refusing (its own error says it is closed).
      if (this.ended()) return this.cameBack();
      this.probe().then(
        () => this.cameBack(),
        () => this.down && this.schedule(),
      );
    }, PROBE_MS);
    this.timer.unref();
  }
}

/** How often a down connection is probed: a server back is noticed within this. */
export const PROBE_MS = 250;
