import { defineScript } from '../../core/scripts/redis-script';

/**
 * Starts the invalidation of one tag: bumps its epoch and takes (and deletes) its member set, atomically, so a
 * writer either registered before (its key is in the returned members and gets a tombstone) or sees the new epoch.
 *
 * KEYS[1] tag member set, KEYS[2] tag epoch (one hash tag).
 * ARGV[1] minimum TTL of the epoch (ms), so a fill that read the old epoch before loading still sees the bump.
 * Returns {epoch, ttlMs, members}: ttlMs is the member set's remaining TTL (at least ARGV[1]), which bounds every
 * member's TTL and is used for the tombstones.
 */
export const TAG_INVALIDATE_SCRIPT = defineScript<[number, number, string[]]>(
  'cache_tag_invalidate',
  `
local e = redis.call('INCR', KEYS[2])
local members = redis.call('SMEMBERS', KEYS[1])
local px = redis.call('PTTL', KEYS[1])
local min = tonumber(ARGV[1])
if px < min then px = min end
redis.call('DEL', KEYS[1])
if redis.call('PTTL', KEYS[2]) < px then redis.call('PEXPIRE', KEYS[2], px) end
return {e, px, members}
`,
  { keys: 2 },
);
