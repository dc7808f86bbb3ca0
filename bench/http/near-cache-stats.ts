/** The near-cache endpoint of the `ours` app, and the route exposing its L1 counters (CacheService.nearStats()). */
export const NEAR_CACHED_PATH = '/near-cached';
export const NEAR_STATS_PATH = '/near-stats';

/** The part of CacheService.nearStats() the benchmark checks. */
export interface NearStats {
  live: boolean;
  entries: number;
  hits: number;
  misses: number;
}

/** Reads the app's L1 counters over HTTP (outside the measured stretch). */
export async function readNearStats(port: number): Promise<NearStats> {
  const response = await fetch(`http://127.0.0.1:${port}${NEAR_STATS_PATH}`);
  if (!response.ok) throw new Error(`GET ${NEAR_STATS_PATH} answered ${response.status}`);
  return (await response.json()) as NearStats;
}

/**
 * Waits until the app's invalidation listener is subscribed (L1 is bypassed before that) and the near-cache
 * endpoint's value is held in L1, so every measured request can be an L1 hit.
 */
export async function awaitNearCacheFilled(port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let stats = await readNearStats(port);
  while (Date.now() < deadline) {
    if (stats.live) {
      const before = stats.hits;
      const response = await fetch(`http://127.0.0.1:${port}${NEAR_CACHED_PATH}`);
      await response.arrayBuffer();
      if (!response.ok) throw new Error(`GET ${NEAR_CACHED_PATH} answered ${response.status}`);
      stats = await readNearStats(port);
      if (stats.hits > before) return;
    } else {
      await new Promise((resolve) => setTimeout(resolve, 50));
      stats = await readNearStats(port);
    }
  }
  throw new Error(
    `the near cache did not answer ${NEAR_CACHED_PATH} from L1 within ${timeoutMs} ms (last stats: ${JSON.stringify(stats)})`,
  );
}
