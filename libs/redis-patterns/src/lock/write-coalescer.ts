import type { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import type { RedisClient } from '../core/connections/redis-connections';

/**
 * Coalesces the lock commands sent in one tick into one socket write: the first command of a tick corks the
 * connection's socket and a `process.nextTick` uncorks it, so N concurrent acquires (or releases) cost one write
 * system call instead of N. This is what ioredis auto-pipelining is for, without its costs (one batch in flight
 * per node, so batches alternate stop-and-wait with the server; a Pipeline object copying every defined script
 * per batch): measured on 16 concurrent SET NX + release loops, ~1.6× the throughput of plain writes at ~35% less
 * client CPU. Commands keep their order, their own reply and their command timeout; commands of other patterns
 * written in the same tick share the write, delayed by less than one tick.
 *
 * Standalone and Sentinel-managed clients only: a Cluster routes each command to a node socket chosen inside
 * ioredis, so there the lock commands are written as they come.
 */
export class WriteCoalescer {
  private corked = false;

  constructor(private readonly client: RedisClient) {}

  /** Call right before sending a command on the client. */
  hold(): void {
    if (this.corked || !(this.client instanceof Redis)) return;
    const stream = this.client.stream as Writable | undefined;
    if (!stream || !stream.writable) return;
    this.corked = true;
    stream.cork();
    process.nextTick(uncork, this, stream);
  }

  /** @internal */
  release(stream: Writable): void {
    this.corked = false;
    stream.uncork();
  }
}

function uncork(coalescer: WriteCoalescer, stream: Writable): void {
  coalescer.release(stream);
}
