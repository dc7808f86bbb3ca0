import { defineScript } from '../../core/scripts/redis-script';
import { COMPARE_AND_DELETE_LUA } from '../../core/scripts/lua/compare-and-delete.lua';

/**
 * Releases a fill lock only if the caller still owns it (compare-and-delete, see COMPARE_AND_DELETE_LUA), so a slow
 * loader whose lock expired never frees a lock another caller has since taken.
 *
 * KEYS[1] fill-lock key. ARGV[1] token. Returns 1 when released, 0 otherwise.
 */
export const RELEASE_FILL_LOCK_SCRIPT = defineScript<number>('cache_release_fill_lock', COMPARE_AND_DELETE_LUA, { keys: 1 });
