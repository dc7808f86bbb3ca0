import { defineScript } from '../../core/scripts/redis-script';

/**
 * Releases a fill lock only if the caller still owns it (compare-and-delete), so a slow loader whose lock expired
 * never frees a lock another caller has since taken.
 *
 * KEYS[1] fill-lock key. ARGV[1] token. Returns 1 when released, 0 otherwise.
 */
export const RELEASE_LOCK_SCRIPT = defineScript<number>(
  'cache_release_lock',
  1,
  `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`,
);
