import type { LeaderboardStore } from './leaderboard.store';

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

  constructor(private readonly store: Pick<LeaderboardStore, 'serverTimeMs'>) {}

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
    const server = await this.store.serverTimeMs();
    const after = Date.now();
    // The server read its clock somewhere within the round trip: assume the middle.
    this.offsetMs = server - (before + after) / 2;
    this.syncedAt = performance.now();
  }
}
