import { defineScript } from '../../core/scripts/redis-script';

/**
 * Re-checks the cache and takes the per-key fill lock in one step, so no caller can take the lock after another
 * has already filled the key (the gap a GET followed by SET NX would leave).
 *
 * KEYS[1] value key, KEYS[2] fill-lock key (same hash tag).
 * ARGV[1] lock token, ARGV[2] lock TTL (ms), ARGV[3] '1' = return a fresh value when present, '0' = lock only
 *         (background refresh of a value we already hold).
 * Returns {1, entry} when a fresh entry is present (its PTTL is above the entry's stale window, read from the
 * entry header `1:<flags>:<staleMs>:`), {2} when the lock was taken, {0, lockPttl} when another caller holds it.
 */
export const FILL_LOCK_SCRIPT = defineScript<[number, string?] | [number, number]>(
  'cache_fill_lock',
  `
if ARGV[3] == '1' then
  local v = redis.call('GET', KEYS[1])
  if v then
    local pttl = redis.call('PTTL', KEYS[1])
    local stale = tonumber(string.match(v, '^1:%a*:(%d+):')) or 0
    if pttl < 0 or pttl > stale then return {1, v} end
  end
end
-- '~' is the marker del leaves to stop in-flight fills from writing back: it does not hold anyone off.
local holder = redis.call('GET', KEYS[2])
if not holder or holder == '~' then
  redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
  return {2}
end
return {0, redis.call('PTTL', KEYS[2])}
`,
  { keys: 2 },
);
