import type { RedisClient } from '../core/connections/redis-connections';

const RESYNC_MS = 60_000;

/**
 * The Redis server's clock as seen from this process (invariant 3), for decisions taken outside a script, such as
 * which daily board "today" is. One TIME round trip per minute measures the offset to the local clock; each
 * reading is then local time plus that offset, accurate to about half a round trip.
 */
export class RedisClock {
  private offsetMs = 0;
  private syncedAt = -Infinity;
  private pending?: Promise<void>;

  constructor(private readonly client: RedisClient) {}

  /** Milliseconds since the epoch on the server's clock. */
  async now(): Promise<number> {
    if (performance.now() - this.syncedAt > RESYNC_MS) {
      this.pending ??= this.sync().finally(() => (this.pending = undefined));
      await this.pending;
    }
    return Date.now() + this.offsetMs;
  }

  private async sync(): Promise<void> {
    const before = Date.now();
    const [seconds, micros] = await this.client.time();
    const after = Date.now();
    const server = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    this.offsetMs = server - (before + after) / 2;
    this.syncedAt = performance.now();
  }
}
