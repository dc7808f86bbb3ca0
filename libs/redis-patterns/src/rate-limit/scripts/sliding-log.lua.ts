/**
 * Sliding log: a sorted set of hits scored by Redis time, so the count over the last `windowMs` is exact.
 * Members are unique (`nonce:n`, the nonce being unique per call), so hits in the same microsecond never collapse.
 * Memory: O(limit) per identity (the set never holds more than `limit` members).
 *
 * check(key, limit, windowMs, cost, now, nonce) → ok, available, resetNowMs, resetAfterMs, retryMs, commit; resetNowMs
 * is a function when the call is allowed and consumes (it reads the newest hit only if a reply needs it)
 */
export const SLIDING_LOG_LUA = `
local function sliding_log(key, limit, window, cost, now, nonce)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  local count = redis.call('ZCARD', key)
  local available = limit - count
  local ok = cost <= available
  local commit = function()
    if cost == 1 then
      -- The score as the clock's text, formatted once per batch (now is now_ms(): see consume.script.ts).
      redis.call('ZADD', key, now_ms_text(), nonce .. ':1')
    else
      local args = {}
      for n = 1, cost do
        args[#args + 1] = now
        args[#args + 1] = nonce .. ':' .. n
        -- unpack() is bounded by the Lua C stack: flush in chunks.
        if #args >= 1000 then redis.call('ZADD', key, unpack(args)); args = {} end
      end
      if #args > 0 then redis.call('ZADD', key, unpack(args)) end
    end
    redis.call('PEXPIRE', key, window)
  end
  if count == 0 then return ok, available, 0, window, ok and 0 or window, commit end
  if ok and cost > 0 then
    -- Allowed and consuming: a reply reports resetAfter (a window), so the newest hit is read only if another
    -- policy denies the call (the reset is then a function the caller resolves).
    local reset_now = function()
      return math.max(tonumber(redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')[2]) + window - now, 0)
    end
    return ok, available, reset_now, window, 0, commit
  end
  local newest = tonumber(redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')[2])
  if newest > now and not ok then
    -- A denial because of hits stamped in the future (future-hits.lua.ts): count them as made now.
    rescore_future_hits(key, now, window)
    newest = now
  end
  local reset_now = math.max(newest + window - now, 0)
  local retry = 0
  if not ok then
    if cost > limit then
      retry = window
    else
      -- The call fits once the (count + cost - limit) oldest hits have left the window.
      local rank = count + cost - limit - 1
      local entry = redis.call('ZRANGE', key, rank, rank, 'WITHSCORES')
      retry = math.max(tonumber(entry[2]) + window - now, 1)
    end
  end
  return ok, available, reset_now, window, retry, commit
end
`;

/**
 * Refund or penalty on a sliding log: a refund removes the newest hits (ZPOPMAX), a penalty adds hits stamped now,
 * the count kept within 0 and `limit`.
 *
 * adjust(key, limit, windowMs, delta, now, nonce) → remaining, resetMs
 */
export const SLIDING_LOG_ADJUST_LUA = `
local function sliding_log_adjust(key, limit, window, delta, now, nonce)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  local count = redis.call('ZCARD', key)
  if delta < 0 then
    local n = math.min(-delta, count)
    if n > 0 then redis.call('ZPOPMAX', key, n) end
    count = count - n
  elseif delta > 0 then
    local n = math.min(delta, limit - count)
    local args = {}
    for i = 1, n do
      args[#args + 1] = now
      args[#args + 1] = nonce .. ':' .. i
      if #args >= 1000 then redis.call('ZADD', key, unpack(args)); args = {} end
    end
    if #args > 0 then redis.call('ZADD', key, unpack(args)) end
    if n > 0 then redis.call('PEXPIRE', key, window) end
    count = count + math.max(n, 0)
  end
  local reset = 0
  if count > 0 then
    reset = math.max(tonumber(redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')[2]) + window - now, 0)
  end
  return limit - count, reset
end
`;
