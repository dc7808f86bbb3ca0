import { defineScript } from '../../core/scripts/redis-script';
import { REDIS_CLOCK_LUA } from './redis-clock.lua';

/**
 * Sliding window counter, one policy: the specialised form of `sliding-window-counter.lua.ts` (same state, same
 * estimate, no function table or closures): TIME + GET, then SET PX when allowed.
 *
 * KEYS[1]  the counts (a string `<w> <c> <p>`: aligned window index, current count, previous count)
 * ARGV[1]  cost (integer ≥ 0)
 * ARGV[2]  limit
 * ARGV[3]  windowMs
 * Returns  { allowed (1|0), remaining, resetMs, retryAfterMs }
 *
 * Runs alone or as one call of a batch (see RedisScript): concurrent decisions share one EVALSHA.
 *
 * Time is Redis TIME, read once per batch (redis-clock.lua.ts; invariant 3): windows are aligned on the server's
 * clock, the same for every instance.
 */
export const singleSlidingWindowCounterScript = defineScript<number[]>(
  'rate_limit_swc',
  `
local key = KEYS[1]
local cost, limit, window = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local now = now_ms()
local index = math.floor(now / window)
local elapsed = now - index * window
local current, previous = 0, 0
local state = redis.call('GET', key)
if state then
  local w, c, p = string.match(state, '^(%S+) (%S+) (%S+)$')
  local stored = tonumber(w)
  if stored == index then
    current, previous = tonumber(c), tonumber(p)
  elseif stored == index - 1 then
    previous = tonumber(c)
  elseif stored > index then
    -- Written on a clock ahead of this server's (a failover, a restored dump): counted in this window rather than
    -- dropped (which would admit a whole limit again), and rewritten so, or the window would not move on until
    -- this clock caught up.
    current, previous = tonumber(c), tonumber(p)
    redis.call('SET', key, string.format('%d %d %d', index, current, previous), 'PX', math.ceil(2 * window - elapsed))
  end
end
local available = limit - (previous * (1 - elapsed / window) + current)
if cost <= available + 1e-9 then
  if cost > 0 then
    -- State and TTL in one command: the state matters until the end of the next window, no longer.
    -- Whole numbers (window algorithms count whole units): one %d format rather than three number conversions.
    redis.call('SET', key, string.format('%d %d %d', index, current + cost, previous), 'PX', math.ceil(2 * window - elapsed))
    return { 1, math.max(math.floor(available - cost), 0), math.ceil(2 * window - elapsed), 0 }
  end
end
local reset_now = 0
if current > 0 then reset_now = 2 * window - elapsed elseif previous > 0 then reset_now = window - elapsed end
if cost <= available + 1e-9 then return { 1, math.max(math.floor(available), 0), math.ceil(reset_now), 0 } end
local retry
if cost > limit then
  retry = 2 * window
elseif previous > 0 and current + cost <= limit then
  -- Fits later in this window, once enough of the previous window's weight has slid out.
  retry = window * (1 - (limit - current - cost) / previous) - elapsed
else
  -- Fits in the next window, where this window's count becomes the fading previous one.
  local wait = 0
  if current > 0 then wait = math.max(window * (1 - (limit - cost) / current), 0) end
  retry = window - elapsed + wait
end
return { 0, math.max(math.floor(available), 0), math.ceil(reset_now), math.ceil(math.max(retry, 1)) }
`,
  { keys: 1, args: 3, prelude: REDIS_CLOCK_LUA },
);
