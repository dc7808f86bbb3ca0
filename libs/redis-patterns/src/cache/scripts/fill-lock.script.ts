import { defineScript } from '../../core/scripts/redis-script';

/**
 * Re-checks the cache and takes the per-key fill lock in one step, so no caller can take the lock after another
 * has already filled the key (the gap a GET followed by SET NX would leave).
 *
 * KEYS[1] value key, KEYS[2] fill-lock key (same hash tag).
 * ARGV[1] lock token, ARGV[2] lock TTL (ms), ARGV[3] '1' = return a fresh value when present, '0' = lock only
 *         (background refresh of a value we already hold, first attempt of a forced refresh), '2' = return a fresh
 *         value only when no one holds the lock (a forced refresh waiting for another caller's load).
 * Returns {1, entry} when a fresh entry is present (its PTTL is above the entry's stale and grace windows, read from
 * the entry header `<layout>:<flags>:<staleMs>[g<graceMs>]:`), {2} when the lock was taken, {0, lockPttl} when
 * another caller holds it.
 */
export const FILL_LOCK_SCRIPT = defineScript<[number, string?] | [number, number]>(
  'cache_fill_lock',
  `
-- '~' is the marker del leaves to stop in-flight fills from writing back: it does not hold anyone off.
local holder = redis.call('GET', KEYS[2])
local free = not holder or holder == '~'
if ARGV[3] == '1' or (ARGV[3] == '2' and free) then
  local v = redis.call('GET', KEYS[1])
  if v then
    local pttl = redis.call('PTTL', KEYS[1])
    local stale, grace = string.match(v, '^%d:%a*:(%d+)g?(%d*):')
    if pttl < 0 or pttl > (tonumber(stale) or 0) + (tonumber(grace) or 0) then return {1, v} end
  end
end
if free then
  redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
  return {2}
end
return {0, redis.call('PTTL', KEYS[2])}
`,
  { keys: 2 },
);
