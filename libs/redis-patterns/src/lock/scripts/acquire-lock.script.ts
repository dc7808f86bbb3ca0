import { defineScript } from '../../core/scripts/redis-script';

/**
 * Takes a lock and issues its fencing token in one round trip.
 *
 * KEYS[1] lock key, KEYS[2] fencing counter (same hash tag)
 * ARGV[1] owner token, ARGV[2] lock TTL in ms, ARGV[3] fencing counter TTL in ms (0 = no TTL)
 * Returns {1, fencingToken (string)} when taken, {0, remaining PTTL of the holder in ms} when held.
 *
 * SET NX PX and the counter update happen in one script, so no other client can take the lock between them and
 * every holder's token is greater than every earlier holder's. The token is max(counter + 1, server time in µs):
 * it keeps increasing even if the counter expires or is lost (a restart without persistence, a failover that
 * lost the last write), as long as the server clock does not step back. Time comes from Redis TIME, never from
 * the app (invariant 3). The value is formatted with %.0f because Lua's tostring would round it.
 */
export const ACQUIRE_LOCK_SCRIPT = defineScript<[number, string | number]>(
  'lock_acquire',
  2,
  `
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return {0, redis.call('PTTL', KEYS[1])}
end
local now = redis.call('TIME')
local floor = tonumber(now[1]) * 1000000 + tonumber(now[2])
local last = tonumber(redis.call('GET', KEYS[2]) or '0') or 0
local fence = last + 1
if fence < floor then fence = floor end
local value = string.format('%.0f', fence)
local fenceTtl = tonumber(ARGV[3])
if fenceTtl > 0 then
  redis.call('SET', KEYS[2], value, 'PX', fenceTtl)
else
  redis.call('SET', KEYS[2], value)
end
return {1, value}
`,
);
