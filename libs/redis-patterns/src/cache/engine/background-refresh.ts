import { randomBytes } from 'node:crypto';
import type { CacheEngine } from './cache-engine';
import type { FoundEntry, StorePredicate } from './cache-entry';
import { isRefusal } from './cache-health';
import type { EntryPolicy } from './entry-policy';

/**
 * XFetch: refresh early with a probability that rises as expiry nears, scaled by how long a load takes (`deltaMs`,
 * stored with the entry), so the refresh of a hot key is spread over its last moments instead of all callers missing
 * at once when it expires.
 */
export function shouldRefreshEarly(found: FoundEntry, policy: EntryPolicy): boolean {
  if (found.pttl === undefined || found.pttl < 0) return false;
  const freshLeftMs = found.pttl - found.staleMs;
  return found.deltaMs * policy.beta * -Math.log(Math.random()) >= freshLeftMs;
}

/**
 * Reloads an entry while callers keep being answered from it (a stale-while-revalidate or XFetch hit). One refresh
 * per key per process (its own single-flight slot, apart from a miss's load), and one across instances: the fill
 * lock is taken without waiting, and an instance that does not get it keeps serving what it has. A failure is
 * reported, never thrown: nobody awaits a background refresh, and the entry it would have replaced still answers.
 */
export function refreshInBackground<T>(
  engine: CacheEngine,
  entry: string,
  loader: () => Promise<T>,
  policy: EntryPolicy,
  keep?: StorePredicate,
): void {
  const flight = `${entry}\u0000refresh`;
  if (engine.flights.has(flight)) return;
  const { health, store, settings } = engine;
  engine.flights
    .run(flight, async () => {
      const epochs = policy.tags.length ? await engine.tagEpochs(policy.tags) : [];
      if (epochs === undefined || !health.available(entry)) return;
      const token = randomBytes(12).toString('base64url');
      const reply = await store.fillLock(entry, token, settings.lockTtlMs, 'lock');
      if (reply.kind !== 'locked') return;
      health.stats.refreshes++;
      await engine.load(entry, loader, policy, keep, epochs, token, true);
    })
    .catch((error: unknown) =>
      isRefusal(error)
        ? health.failed('background refresh', error)
        : health.warn(`Cache background refresh failed: ${(error as Error)?.message ?? String(error)}`),
    );
}
