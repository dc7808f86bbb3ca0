import { defineScript } from '../../core/scripts/redis-script';

/**
 * Starts the invalidation of one tag: bumps its epoch and takes (and deletes) its member index, atomically, so a
 * writer either registered before (its key is among the returned members and gets a tombstone) or sees the new
 * epoch. Only live members are returned: a member whose expiry has passed has no entry left to delete (see the
 * register script), nor a write still to land; `now` is the register script's, rounded down alike.
 *
 * KEYS[1] tag member index, KEYS[2] tag epoch (one hash tag).
 * ARGV[1] minimum TTL of the epoch (ms), so a fill that read the old epoch before loading still sees the bump.
 * Returns {epoch, ttlMs, members}: ttlMs is the index's remaining TTL (at least ARGV[1]), which bounds every
 * member's TTL and is used for the tombstones.
 */
export const TAG_INVALIDATE_SCRIPT = defineScript<[number, number, string[]]>(
  'cache_tag_invalidate',
  `
local e = redis.call('INCR', KEYS[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local members = redis.call('ZRANGE', KEYS[1], '(' .. string.format('%.0f', now), '+inf', 'BYSCORE')
local px = redis.call('PTTL', KEYS[1])
local min = tonumber(ARGV[1])
if px < min then px = min end
redis.call('DEL', KEYS[1])
if redis.call('PTTL', KEYS[2]) < px then redis.call('PEXPIRE', KEYS[2], px) end
return {e, px, members}
`,
  { keys: 2 },
);
