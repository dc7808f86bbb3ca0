import type { Redis } from 'ioredis';
import { withDeadline } from '../time/with-deadline';

/**
 * Detects a server that keeps its socket open but stops answering (SIGSTOP, a long fork, a black-holed network).
 * ioredis then keeps every command that timed out in its reply queue, so memory grows and each new command still
 * waits its full deadline. A PING every `intervalMs` with its own deadline costs nothing measurable; after
 * `threshold` consecutive misses the connection is dropped and reconnected, which fails what is queued at once —
 * from then on commands fail immediately (no offline queue) until the server answers again.
 */
export class FrozenServerWatchdog {
  private timer?: NodeJS.Timeout;
  private misses = 0;
  private inFlight = false;

  constructor(
    private readonly client: Redis,
    /** Told before the socket is dropped, so the connection's state line names the cause. */
    private readonly onFrozen: () => void,
    private readonly intervalMs: number,
    private readonly deadlineMs: number,
    private readonly threshold = 2,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.probe(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async probe(): Promise<void> {
    if (this.inFlight || this.client.status !== 'ready') return;
    this.inFlight = true;
    const answer = await withDeadline(
      this.client.ping().then(
        () => 'ok' as const,
        () => 'error' as const,
      ),
      this.deadlineMs,
      () => 'timeout' as const,
    );
    this.inFlight = false;
    if (answer === 'ok') {
      this.misses = 0;
      return;
    }
    if (answer === 'timeout' && ++this.misses >= this.threshold && this.client.status === 'ready') {
      this.misses = 0;
      this.onFrozen();
      this.client.disconnect(true);
      // disconnect() ends the socket gracefully, which never completes against a frozen peer; destroying it makes
      // ioredis see the close now and reject the commands still awaiting a reply.
      (this.client as unknown as { stream?: { destroy(): void } }).stream?.destroy();
    }
  }
}
