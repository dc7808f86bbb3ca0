import { defineScript } from '../../core/scripts/redis-script';
import { SERVER_CLOCK_LUA } from '../../core/scripts/lua/server-clock.lua';

/**
 * Sliding expiration bounded by the absolute deadline: the new TTL is the requested (or stored) idle TTL, cut to
 * what is left before `m:abs` on the server clock, so no touch extends a session past its maximum lifetime.
 *
 * KEYS[1]  the session hash
 * ARGV[1]  idle TTL in ms, or 0 to restore the session's own (`m:ttl`)
 * Returns  the TTL applied in ms, or 0 when the session does not exist (or just reached its deadline and was deleted).
 */
export const SESSION_TOUCH = defineScript<number>(
  'session_touch',
  `${SERVER_CLOCK_LUA}
local meta = redis.call('HMGET', KEYS[1], 'm:ttl', 'm:abs')
if not meta[1] then return 0 end
local ttl = tonumber(ARGV[1])
if ttl == 0 then ttl = tonumber(meta[1]) end
if meta[2] then
  local left = tonumber(meta[2]) - math.floor(now_ms())
  if left <= 0 then
    redis.call('DEL', KEYS[1])
    return 0
  end
  if left < ttl then ttl = left end
end
redis.call('PEXPIRE', KEYS[1], ttl)
return ttl
`,
  { keys: 1 },
);
