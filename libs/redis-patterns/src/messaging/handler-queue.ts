import type { TraceCarrier } from '../core/telemetry/trace-context';

/** Receives one message: the decoded payload and the user-facing channel it was published on. */
export type MessageHandler<T = unknown> = (message: T, channel: string) => unknown;

/** A handler as a HandlerQueue calls it: with the trace context the message carried. */
export type QueuedHandler = (message: unknown, channel: string, carrier: TraceCarrier | undefined) => unknown;

/**
 * How long one drain may run handlers back to back before it yields to the event loop. A handler that settles
 * synchronously (CPU-bound, or returning a resolved promise) gives way only to the microtask queue: without a yield,
 * a queue of them would keep the socket reader from running until the queue is empty (10 000 messages of 10 ms
 * each: 100 s), while Redis disconnects the subscriber for its output buffer.
 */
const YIELD_AFTER_MS = 5;

/**
 * Runs one handler over its messages one at a time, in arrival order, so a slow handler delays only itself and
 * never the socket reader or the other handlers. The buffer is bounded: when it is full the newest message is
 * dropped and counted (pub/sub is at-most-once anyway; unbounded growth would take the process down instead).
 */
export class HandlerQueue {
  private readonly items: Array<[unknown, string, TraceCarrier | undefined]> = [];
  private head = 0;
  private running = false;
  private idleWaiters: Array<() => void> = [];
  /** Messages dropped because the buffer was full, since creation. */
  dropped = 0;

  constructor(
    private readonly handler: QueuedHandler,
    private readonly capacity: number,
    private readonly onError: (error: unknown, channel: string) => void,
    private readonly onDrop: (channel: string, dropped: number) => void,
  ) {}

  /** Queues a message (with the trace context it carried); returns false (and counts it) when the buffer is full. */
  push(message: unknown, channel: string, carrier?: TraceCarrier): boolean {
    if (this.items.length - this.head >= this.capacity) {
      this.dropped++;
      this.onDrop(channel, this.dropped);
      return false;
    }
    this.items.push([message, channel, carrier]);
    if (!this.running) void this.drain();
    return true;
  }

  /** Messages waiting (not counting the one being handled). */
  get size(): number {
    return this.items.length - this.head;
  }

  /** Resolves when nothing is queued or running. */
  whenIdle(): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Forgets the messages not yet handled (used when the subscription ends). */
  clear(): void {
    this.items.length = 0;
    this.head = 0;
  }

  private async drain(): Promise<void> {
    this.running = true;
    let sliceStart = performance.now();
    while (this.head < this.items.length) {
      const [message, channel, carrier] = this.items[this.head];
      this.items[this.head++] = undefined as never;
      if (this.head > 1024 && this.head * 2 > this.items.length) {
        this.items.splice(0, this.head);
        this.head = 0;
      }
      try {
        await this.handler(message, channel, carrier);
      } catch (error) {
        this.onError(error, channel);
      }
      if (performance.now() - sliceStart >= YIELD_AFTER_MS) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
    }
    this.items.length = 0;
    this.head = 0;
    this.running = false;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
