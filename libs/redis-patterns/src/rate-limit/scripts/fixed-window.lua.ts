/**
 * Fixed window, counted from the first hit (one string key holding the count, expiring with the window). No clock
 * is read: the window is the key's TTL, kept by the server that owns the key.
 *
 * Counted first (INCRBY + PTTL, the fewest commands): a call's units are in the counter from the check, and a
 * denied call (by this policy or another) takes them out again in the same atomic script, so no other call sees the
 * over-count and a denial consumes nothing. A peek (cost 0) writes nothing.
 *
 * count_fixed_window(key, windowMs, cost, windowArg, costArg) → count with the call's units, ttl (-1: the counter has
 *   no window yet)
 * settle_fixed_window(key, windowArg, cost, costArg, count, ttl, allowed): an allowed call's first hit starts the
 *   window; a denied call's units come out
 * fixed_window(key, limit, windowMs, cost) → ok, available, resetNowMs, resetAfterMs, retryMs, commit (none when the
 *   count is already in), undo (none for a peek): the check the generic script calls
 */
export const FIXED_WINDOW_LUA = `
-- window_arg and cost_arg are window and cost as they go to Redis: a script passes its ARGV strings (a Lua number
-- argument costs Redis a %.17g conversion per command).
local function count_fixed_window(key, window, cost, window_arg, cost_arg)
  local count = redis.call('INCRBY', key, cost_arg)
  local ttl = redis.call('PTTL', key)
  if ttl == 0 then
    -- The counter's last millisecond (Redis keeps a key through the millisecond it expires in): its window is over,
    -- so this hit is the first of the next one. Counted in the old window, it would vanish with it (or be denied
    -- for a whole window more).
    redis.call('SET', key, cost_arg)
    count, ttl = cost, -1
  end
  if ttl > window then
    -- Longer than a window: the expiry was set on a clock ahead of this server's and came here as an absolute time
    -- (a failover, a restored dump). Kept, the window would last as much longer as the clocks differ; it ends at
    -- most a window from now, with its count.
    redis.call('PEXPIRE', key, window_arg)
    ttl = window
  end
  return count, ttl
end

local function settle_fixed_window(key, window_arg, cost, cost_arg, count, ttl, allowed)
  if allowed then
    -- The window's first hit (or a counter that somehow lost its TTL): the counter never outlives its window.
    if ttl < 0 then redis.call('PEXPIRE', key, window_arg) end
  elseif count == cost and ttl < 0 then
    -- Only a counter this call created goes: one a refund left at 0 keeps its window.
    redis.call('DEL', key)
  else
    redis.call('DECRBY', key, cost_arg)
  end
end

local function fixed_window(key, limit, window, cost)
  if cost == 0 then
    -- A counter in its last millisecond (PTTL 0) belongs to a window that is over: it counts as none.
    local ttl = math.max(redis.call('PTTL', key), 0)
    local count = 0
    if ttl > 0 then count = tonumber(redis.call('GET', key) or '0') end
    local ok = count <= limit
    return ok, limit - count, ttl, ttl > 0 and ttl or window, (ok and 0) or (ttl > 0 and ttl or window), nil
  end
  local count, ttl = count_fixed_window(key, window, cost, window, cost)
  local ok = count <= limit
  -- Once counted, an allowed call has nothing to commit unless it started the window.
  local commit = nil
  if ttl < 0 then commit = function() settle_fixed_window(key, window, cost, cost, count, ttl, true) end end
  local undo = function() settle_fixed_window(key, window, cost, cost, count, ttl, false) end
  local left = math.max(ttl, 0)
  return ok, limit - (count - cost), left, left > 0 and left or window, (ok and 0) or (left > 0 and left or window), commit, undo
end
`;

/**
 * Refund (`delta` < 0) or penalty (`delta` > 0) on a fixed window, the count kept within 0 and `limit`. The window
 * keeps its end: a refund to 0 leaves the counter at 0 rather than deleting it (the next hit would start a new
 * window). A penalty on no counter starts the window.
 *
 * adjust(key, limit, windowMs, delta) → remaining, resetMs
 */
export const FIXED_WINDOW_ADJUST_LUA = `
local function fixed_window_adjust(key, limit, window, delta)
  local stored = redis.call('GET', key)
  local ttl = stored and redis.call('PTTL', key) or -2
  -- A counter in its last millisecond (PTTL 0) belongs to a window that is over.
  if ttl == 0 then stored = nil end
  local count = stored and tonumber(stored) or 0
  local target = math.min(math.max(count + delta, 0), limit)
  if not stored then
    if target > 0 then redis.call('SET', key, target, 'PX', window) end
    return limit - target, target > 0 and window or 0
  end
  if target ~= count then redis.call('INCRBY', key, target - count) end
  if ttl < 0 or ttl > window then
    redis.call('PEXPIRE', key, window)
    ttl = window
  end
  return limit - target, ttl
end
`;
