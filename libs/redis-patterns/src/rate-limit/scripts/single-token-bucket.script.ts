import { defineScript } from '../../core/scripts/redis-script';
import { REDIS_CLOCK_LUA } from './redis-clock.lua';

/**
 * Token bucket, one policy: the specialised form of `token-bucket.lua.ts` (same state, same arithmetic, no
 * function table or closures): TIME + GET, then SET PX when allowed.
 *
 * KEYS[1]  the bucket (a string `<tokens> <ts>`: tokens left, fractional, and the Redis-time ms they were counted at)
 * ARGV[1]  cost (may be fractional)
 * ARGV[2]  capacity
 * ARGV[3]  refill per second
 * Returns  { allowed (1|0), remaining, resetMs, retryAfterMs }
 *
 * Runs alone or as one call of a batch (see RedisScript): concurrent decisions share one EVALSHA.
 *
 * Time is Redis TIME, read once per batch (redis-clock.lua.ts; invariant 3). A missing key is a full bucket, so the
 * key expires once it would be full.
 */
export const singleTokenBucketScript = defineScript<number[]>(
  'rate_limit_tb',
  `
local key = KEYS[1]
local cost, capacity = tonumber(ARGV[1]), tonumber(ARGV[2])
local per_ms = tonumber(ARGV[3]) / 1000
local now = now_ms()
local tokens = capacity
local state = redis.call('GET', key)
if state then
  local left, last = string.match(state, '^(%S+) (%S+)$')
  left, last = tonumber(left), tonumber(last)
  if last > now then
    -- Counted on a clock ahead of this server's (a failover, a restored dump): the tokens are counted from now, and
    -- the state says so, or they would not refill until this clock caught up (a lock-out as long as the clocks
    -- differ).
    last = now
    redis.call('SET', key, count_text(left) .. ' ' .. now_ms_text(), 'PX', math.max(math.ceil((capacity - left) / per_ms), 1))
  end
  tokens = math.min(capacity, left + (now - last) * per_ms)
end
if cost <= tokens + 1e-9 then
  if cost == 0 then return { 1, math.max(math.floor(tokens), 0), math.ceil((capacity - tokens) / per_ms), 0 } end
  local reset_after = (capacity - tokens + cost) / per_ms
  -- State and TTL in one command, both numbers written exactly.
  redis.call('SET', key, count_text(math.max(tokens - cost, 0)) .. ' ' .. now_ms_text(), 'PX', math.max(math.ceil(reset_after), 1))
  return { 1, math.max(math.floor(tokens - cost), 0), math.ceil(reset_after), 0 }
end
local retry = capacity / per_ms
if cost <= capacity then retry = math.max((cost - tokens) / per_ms, 1) end
return { 0, math.max(math.floor(tokens), 0), math.ceil((capacity - tokens) / per_ms), math.ceil(retry) }
`,
  { keys: 1, args: 3, prelude: REDIS_CLOCK_LUA },
);
