import { defineScript } from '../../core/scripts/redis-script';
import { COMPARE_AND_DELETE_LUA } from '../../core/scripts/lua/compare-and-delete.lua';

/**
 * Releases a lock only if the caller still owns it (compare-and-delete, see COMPARE_AND_DELETE_LUA).
 *
 * KEYS[1] lock key
 * ARGV[1] owner token
 * Returns 1 when deleted, 0 when the key is gone or belongs to another holder.
 *
 * Runs alone or as one call of a batch (see RedisScript): concurrent lock operations share one EVALSHA.
 */
export const RELEASE_LEASE_SCRIPT = defineScript<number>('lock_release', COMPARE_AND_DELETE_LUA, { keys: 1, args: 1 });
