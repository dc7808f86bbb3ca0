/**
 * Fixed window, counted from the first hit (one string key holding the count, expiring with the window). No clock
 * is read: the window is the key's TTL, kept by the server that owns the key.
 *
 * check(key, limit, windowMs, cost) → ok, available, resetNowMs, resetAfterMs, retryMs, commit
 */
export const FIXED_WINDOW_LUA = `
local function fixed_window(key, limit, window, cost)
  local stored = redis.call('GET', key)
  local count, ttl = 0, 0
  if stored then
    ttl = redis.call('PTTL', key)
    -- The counter's last millisecond (Redis keeps a key through the millisecond it expires in): its window is over,
    -- and the commit starts the next one.
    if ttl == 0 then stored = nil end
  end
  if stored then
    count = tonumber(stored)
    -- A counter without TTL would limit forever; it cannot be written by this script, but repair it on commit.
    if ttl < 0 then ttl = -1 end
    if ttl > window then
      -- Longer than a window: the expiry was set on a clock ahead of this server's and came here as an absolute
      -- time (a failover, a restored dump). The window ends at most a window from now, with its count.
      redis.call('PEXPIRE', key, window)
      ttl = window
    end
  end
  local available = limit - count
  local ok = cost <= available
  local retry = 0
  if not ok then retry = (ttl > 0) and ttl or window end
  local reset_after = (ttl > 0) and ttl or window
  local commit = function()
    if not stored then
      -- Value and TTL in one command: a counter never exists without its expiry.
      redis.call('SET', key, cost, 'PX', window)
    else
      redis.call('INCRBY', key, cost)
      if ttl < 0 then redis.call('PEXPIRE', key, window) end
    end
  end
  return ok, available, math.max(ttl, 0), reset_after, retry, commit
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
