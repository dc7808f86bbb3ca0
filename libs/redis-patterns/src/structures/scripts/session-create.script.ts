import { defineScript } from '../../core/scripts/redis-script';
import { SERVER_CLOCK_LUA } from '../../core/scripts/lua/server-clock.lua';

/**
 * Creates a session hash and arms its TTL in one atomic step (invariant 1).
 *
 * KEYS[1]  the session hash
 * ARGV[1]  idle TTL in ms (stored as field `m:ttl`, restored by a plain `touch`)
 * ARGV[2]  absolute lifetime in ms, 0 for none (stored as the deadline `m:abs`, server clock)
 * ARGV[3…] field, value pairs (already encoded)
 * Returns  1 when created, 0 when the id already existed (nothing written).
 */
export const SESSION_CREATE = defineScript<number>(
  'session_create',
  `${SERVER_CLOCK_LUA}
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local now = math.floor(now_ms())
local ttl = tonumber(ARGV[1])
local life = tonumber(ARGV[2])
redis.call('HSET', KEYS[1], 'm:ttl', ARGV[1])
for i = 3, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
if life > 0 then
  redis.call('HSET', KEYS[1], 'm:abs', string.format('%d', now + life))
  if life < ttl then ttl = life end
end
redis.call('PEXPIRE', KEYS[1], ttl)
return 1
`,
  { keys: 1 },
);
