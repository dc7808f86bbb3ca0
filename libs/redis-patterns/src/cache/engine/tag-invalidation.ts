import { type CacheHealth, isRefusal } from './cache-health';
import type { CacheStore } from '../cache.store';

// How many member deletions are in flight at once: auto-pipelining sends each batch in a few writes per node.
const BATCH = 500;

/**
 * Invalidates tags without any cross-slot command (invariant 4): per tag, one script bumps the tag's epoch and
 * takes its index's live members (expired ones are skipped: their entries are gone); then each is deleted on its own
 * slot by a script that also leaves a tombstone, so a write racing the invalidation cannot land afterwards (see the
 * write script). Resolves with the number of
 * entries deleted (an entry carrying several of the tags counts once). Fails open: a Redis failure is logged and
 * counted, and what was deleted so far is reported; with `strict` (an explicit call), a refusal of the server's
 * configuration (`RedisRefusedError`) is thrown instead, as no retry would ever invalidate the tags.
 */
export async function invalidateTags(
  store: CacheStore,
  health: CacheHealth,
  tags: readonly string[],
  minEpochTtlMs: number,
  strict = false,
): Promise<number> {
  if (tags.length === 0 || !health.available()) return 0;
  let removed = 0;
  try {
    const taken = await Promise.all(tags.map((tag) => store.invalidateTag(tag, minEpochTtlMs)));
    for (let t = 0; t < tags.length; t++) {
      const { epoch, ttlMs, members } = taken[t];
      for (let i = 0; i < members.length; i += BATCH) {
        const batch = members.slice(i, i + BATCH);
        const results = await Promise.all(batch.map((entry) => store.invalidateEntry(entry, tags[t], epoch, ttlMs)));
        for (const deleted of results) if (deleted) removed++;
      }
    }
  } catch (error) {
    health.failed('tag invalidation', error);
    if (strict && isRefusal(error)) throw error;
  }
  return removed;
}
