import { defineScript } from '../../core/scripts/redis-script';
import { FUTURE_HITS_LUA } from './future-hits.lua';
import { REDIS_CLOCK_LUA } from './redis-clock.lua';

/**
 * Sliding log, one policy: the specialised form of `sliding-log.lua.ts` (same sorted set, no function
 * table or closures). The allowed path is TIME + ZREMRANGEBYSCORE + ZCARD + ZADD + PEXPIRE; the newest and
 * oldest entries are read (ZRANGE) only where a reply needs them (a peek, a denial).
 *
 * KEYS[1]  the log (sorted set of hits scored by Redis-time ms; members `<nonce>:<n>`, unique per unit)
 * ARGV[1]  cost (integer ≥ 0)
 * ARGV[2]  limit
 * ARGV[3]  windowMs
 * ARGV[4]  nonce, unique per call (a per-process prefix and a counter)
 * Returns  { allowed (1|0), remaining, resetMs, retryAfterMs }
 *
 * Runs alone or as one call of a batch (see RedisScript): concurrent decisions share one EVALSHA.
 *
 * Time is Redis TIME, read once per batch (redis-clock.lua.ts; invariant 3): the count over the last windowMs is
 * exact whatever the callers' clocks.
 */
export const singleSlidingLogScript = defineScript<number[]>(
  'rate_limit_sl',
  `
local key = KEYS[1]
local cost, limit, window = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local now = now_ms()
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
local available = limit - count
if cost > 0 and cost <= available then
  if cost == 1 then
    -- The score as text formatted once per batch, the TTL as its ARGV string: no number conversion per call.
    redis.call('ZADD', key, now_ms_text(), ARGV[4] .. ':1')
  else
    local args = {}
    for n = 1, cost do
      args[#args + 1] = now
      args[#args + 1] = ARGV[4] .. ':' .. n
      -- unpack() is bounded by the Lua C stack: flush in chunks.
      if #args >= 1000 then redis.call('ZADD', key, unpack(args)); args = {} end
    end
    if #args > 0 then redis.call('ZADD', key, unpack(args)) end
  end
  redis.call('PEXPIRE', key, ARGV[3])
  return { 1, available - cost, window, 0 }
end
local reset_now = 0
if count > 0 then
  local newest = tonumber(redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')[2])
  if newest > now and cost > available then
    -- A denial because of hits stamped in the future (future-hits.lua.ts): count them as made now.
    rescore_future_hits(key, now, ARGV[3])
    newest = now
  end
  reset_now = math.max(newest + window - now, 0)
end
if cost <= available then return { 1, math.max(available, 0), math.ceil(reset_now), 0 } end
local retry = window
if cost <= limit then
  -- The call fits once the (count + cost - limit) oldest hits have left the window.
  local rank = count + cost - limit - 1
  local entry = redis.call('ZRANGE', key, rank, rank, 'WITHSCORES')
  retry = math.max(tonumber(entry[2]) + window - now, 1)
end
return { 0, math.max(available, 0), math.ceil(reset_now), math.ceil(retry) }
`,
  { keys: 1, args: 4, prelude: `${REDIS_CLOCK_LUA}${FUTURE_HITS_LUA}` },
);
