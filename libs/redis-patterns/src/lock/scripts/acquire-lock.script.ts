import { SERVER_CLOCK_LUA } from '../../core/scripts/lua/server-clock.lua';
import { defineBatchedScript } from '../../core/scripts/batched-script';

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
 *
 * The counter is written and its previous value read in one command (SET … GET, Redis ≥ 6.2), and that write also
 * refreshes its TTL: the server time is written first, because it is almost always the answer (a token per µs
 * would be needed to overtake the clock); only when the previous value is not below it is the counter written
 * again with previous + 1. A taken lock costs 2 commands inside the script (SET NX, SET GET), plus one TIME per
 * batch.
 *
 * One item of a batch (see defineBatchedScript): concurrent lock operations share one EVALSHA.
 */
export const ACQUIRE_LOCK_SCRIPT = defineBatchedScript<[number, string | number]>(
  'lock_acquire',
  `
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return {0, redis.call('PTTL', KEYS[1])}
end
local fence, value = now_us()
-- The TTL goes as its ARGV string: a Lua number argument costs Redis a %.17g conversion.
local fenceTtl = tonumber(ARGV[3])
local last
if fenceTtl > 0 then
  last = redis.call('SET', KEYS[2], value, 'PX', ARGV[3], 'GET')
else
  last = redis.call('SET', KEYS[2], value, 'GET')
end
last = tonumber(last or '0') or 0
if last >= fence then
  value = string.format('%.0f', last + 1)
  if fenceTtl > 0 then
    redis.call('SET', KEYS[2], value, 'PX', ARGV[3])
  else
    redis.call('SET', KEYS[2], value)
  end
end
return {1, value}
`,
  // now_us(): server time in µs and as text, read with TIME and formatted once per batch.
  SERVER_CLOCK_LUA,
  { keys: 2, args: 3 },
);
