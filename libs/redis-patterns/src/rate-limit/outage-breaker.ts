import { ReplyError } from 'ioredis';

/**
 * Remembers that Redis is unreachable, so that during an outage decisions are taken at once without sending
 * anything: no call waits for a command timeout, and nothing queued in a frozen server's socket is applied when it
 * comes back (only the calls already in flight when it froze can be). A background PING every `probeMs` closes
 * the breaker again as soon as Redis answers.
 */
export class OutageBreaker {
  private open = false;
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly probe: () => Promise<unknown>,
    private readonly probeMs = 250,
  ) {}

  /** True while Redis is known to be unreachable. */
  get isOpen(): boolean {
    return this.open;
  }

  /** Records a failed call. Replies from Redis (script or OOM errors) show it is reachable and do not count. */
  record(error: unknown): void {
    if (this.open || this.stopped || error instanceof ReplyError) return;
    this.open = true;
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    this.open = false;
    clearTimeout(this.timer);
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.probe().then(
        () => (this.open = false),
        () => this.stopped || this.schedule(),
      );
    }, this.probeMs);
    this.timer.unref();
  }
}
