import { defineScript } from '../../core/scripts/redis-script';

/**
 * Deletes one member of an invalidated tag and leaves a tombstone (tag → epoch) beside it, so a write that
 * registered under the old epoch and lands later is refused by the write script.
 *
 * KEYS[1] value key, KEYS[2] tombstone hash (one hash tag).
 * ARGV[1] tag, ARGV[2] new epoch, ARGV[3] tombstone TTL (ms, at least the tag index's remaining TTL).
 * Returns 1 when a value was deleted, 0 when the key was already gone.
 */
export const INVALIDATE_ENTRY_SCRIPT = defineScript<number>(
  'cache_invalidate_entry',
  `
local removed = redis.call('DEL', KEYS[1])
local seen = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0')
if seen < tonumber(ARGV[2]) then redis.call('HSET', KEYS[2], ARGV[1], ARGV[2]) end
local px = tonumber(ARGV[3])
if redis.call('PTTL', KEYS[2]) < px then redis.call('PEXPIRE', KEYS[2], px) end
return removed
`,
  { keys: 2 },
);
