import type { Cluster, Redis } from 'ioredis';
import { RedisUnavailableError } from '../errors/redis-unavailable.error';

const MAX_PENDING_ORPHANS = 10_000;

/**
 * Cleans up after acquisitions whose reply never came (a lock, a lease, a permit). A timed-out acquire may still run
 * when the server wakes up, leaving a lease nobody knows the token of for a whole TTL. A release sent on the same
 * connection queues behind it and cleans it up. When that fails too (the connection was dropped because the server
 * stopped answering), the release is sent again as soon as the client is ready: by then the server has run whatever
 * the old socket delivered, however long it was frozen. (An earlier version gave up after one TTL from the failure,
 * and a freeze longer than that left the orphan in place for a whole TTL after Redis came back.)
 */
export class OrphanReleases {
  /** Releases that could not be sent yet: owner token → release. */
  private readonly pending = new Map<string, () => Promise<unknown>>();
  private awaitingReady = false;

  constructor(private readonly client: Redis | Cluster) {}

  /** After `error` failed the acquisition of `token`'s lease: gives it back, now and, if need be, once ready. */
  release(token: string, error: unknown, release: () => Promise<unknown>): void {
    // A send that was refused never reached the server: nothing to clean up later. A command that timed out, or that
    // was failed because its socket closed before the reply, may have been delivered.
    const maybeDelivered = error instanceof RedisUnavailableError && error.mayHaveRun;
    release().catch(() => maybeDelivered && this.releaseWhenReady(token, release));
  }

  private releaseWhenReady(token: string, release: () => Promise<unknown>): void {
    // Bounded: beyond it, orphans expire with their TTL.
    if (this.pending.size >= MAX_PENDING_ORPHANS) return;
    this.pending.set(token, release);
    if (this.awaitingReady) return;
    this.awaitingReady = true;
    this.client.once('ready', () => {
      this.awaitingReady = false;
      const orphans = [...this.pending];
      this.pending.clear();
      for (const [orphanToken, orphanRelease] of orphans) {
        orphanRelease().catch(() => this.releaseWhenReady(orphanToken, orphanRelease));
      }
    });
  }
}
