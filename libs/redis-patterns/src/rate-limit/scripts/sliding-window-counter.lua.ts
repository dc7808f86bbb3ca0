/**
 * Sliding window counter: the counts of the current and the previous aligned window in one string
 * `<w> <c> <p>` (window index, current, previous; one GET, one SET PX); the estimate weighs the previous count by the share of it still
 * inside the sliding window. O(1) memory; exact while the previous window is empty.
 *
 * check(key, limit, windowMs, cost, now) → ok, available, resetNowMs, resetAfterMs, retryMs, commit
 */
export const SLIDING_WINDOW_COUNTER_LUA = `
local function sliding_window_counter(key, limit, window, cost, now)
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
  local used = previous * (1 - elapsed / window) + current
  local available = limit - used
  local ok = cost <= available + 1e-9
  local reset_now = 0
  if current > 0 then reset_now = 2 * window - elapsed elseif previous > 0 then reset_now = window - elapsed end
  local retry = 0
  if not ok then
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
    retry = math.max(retry, 1)
  end
  local commit = function()
    -- State and TTL in one command: the state matters until the end of the next window, no longer.
    -- Whole numbers (window algorithms count whole units): one %d format rather than three number conversions.
    redis.call('SET', key, string.format('%d %d %d', index, current + cost, previous), 'PX', math.ceil(2 * window - elapsed))
  end
  return ok, available, reset_now, 2 * window - elapsed, retry, commit
end
`;

/**
 * Refund or penalty on a sliding counter: the current window's count moves by `delta`, kept at 0 or more and, for
 * a penalty, so that the estimate stays within `limit`.
 *
 * adjust(key, limit, windowMs, delta, now) → remaining, resetMs
 */
export const SLIDING_WINDOW_COUNTER_ADJUST_LUA = `
local function sliding_window_counter_adjust(key, limit, window, delta, now)
  local index = math.floor(now / window)
  local elapsed = now - index * window
  local current, previous = 0, 0
  local state = redis.call('GET', key)
  if state then
    local w, c, p = string.match(state, '^(%S+) (%S+) (%S+)$')
    local stored = tonumber(w)
    if stored == index or stored > index then
      current, previous = tonumber(c), tonumber(p)
    elseif stored == index - 1 then
      previous = tonumber(c)
    end
  end
  local weight = previous * (1 - elapsed / window)
  local target
  if delta < 0 then
    target = math.max(current + delta, 0)
  else
    target = math.max(current, math.min(current + delta, math.floor(limit - weight)))
  end
  if state or target > 0 then
    redis.call('SET', key, string.format('%d %d %d', index, target, previous), 'PX', math.ceil(2 * window - elapsed))
  end
  local reset = 0
  if target > 0 then reset = 2 * window - elapsed elseif previous > 0 then reset = window - elapsed end
  return limit - (weight + target), reset
end
`;
