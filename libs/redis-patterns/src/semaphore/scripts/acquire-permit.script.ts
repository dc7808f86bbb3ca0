import { SERVER_CLOCK_LUA } from '../../core/scripts/lua/server-clock.lua';
import { defineScript } from '../../core/scripts/redis-script';
import { NEXT_FENCE_LUA } from '../../lease/scripts/next-fence.lua';
import { KEEP_ALIVE_FOR_LUA } from '../../lease/scripts/shared-lease.lua';

/**
 * Takes one permit of a semaphore and issues its fencing token, in one round trip.
 *
 * KEYS[1] holders (sorted set: owner token → permit expiry in Redis ms), KEYS[2] fencing counter (same hash tag)
 * ARGV[1] owner token, ARGV[2] permit TTL in ms, ARGV[3] permits, ARGV[4] fencing counter TTL in ms (0 = no TTL)
 * Returns {1, fencingToken} when taken, {0, ms until the first permit in use expires} when all are in use.
 *
 * Expired holders are pruned first, by the server's clock (invariant 3): a crashed holder's permit frees itself at
 * its TTL whatever the clocks of the app instances say. Pruning, counting and adding happen in one script, so two
 * callers can never both take the last permit. A set found empty (no key: Redis deletes an empty sorted set) gets
 * the new permit's TTL without reading the old one first.
 *
 * Runs alone or as one call of a batch (see RedisScript): concurrent acquisitions share one EVALSHA.
 */
export const ACQUIRE_PERMIT_SCRIPT = defineScript<[number, string | number]>(
  'semaphore_acquire',
  `
local now = now_ms()
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local held = redis.call('ZCARD', KEYS[1])
if held >= tonumber(ARGV[3]) then
  local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {0, math.max(0, math.ceil(tonumber(first[2]) - now))}
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
if held == 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) else keep_alive_for(KEYS[1], ARGV[2]) end
return {1, next_fence(KEYS[2], ARGV[4])}
`,
  { keys: 2, args: 4, prelude: SERVER_CLOCK_LUA + NEXT_FENCE_LUA + KEEP_ALIVE_FOR_LUA },
);
