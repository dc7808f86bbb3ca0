/**
 * Token bucket: one string `<tokens> <ts>`, the tokens left (fractional) and the Redis time they were counted at
 * (one GET to read, one SET PX to write: a hash needed HSET and PEXPIRE).
 * Tokens refill continuously; a missing key is a full bucket, so the key expires once it would be full again.
 *
 * check(key, capacity, refillPerSecond, cost, now) → ok, available, resetNowMs, resetAfterMs, retryMs, commit
 */
export const TOKEN_BUCKET_LUA = `
local function token_bucket(key, capacity, rate, cost, now)
  local per_ms = rate / 1000
  local tokens = capacity
  local state = redis.call('GET', key)
  if state then
    local left, last = string.match(state, '^(%S+) (%S+)$')
    left, last = tonumber(left), tonumber(last)
    if last > now then
      -- Counted on a clock ahead of this server's (a failover, a restored dump): the tokens are counted from now,
      -- and the state says so, or they would not refill until this clock caught up (a lock-out as long as the
      -- clocks differ).
      last = now
      redis.call('SET', key, count_text(left) .. ' ' .. now_ms_text(), 'PX', math.max(math.ceil((capacity - left) / per_ms), 1))
    end
    tokens = math.min(capacity, left + (now - last) * per_ms)
  end
  local ok = cost <= tokens + 1e-9
  local retry = 0
  if not ok then
    if cost > capacity then retry = capacity / per_ms else retry = math.max((cost - tokens) / per_ms, 1) end
  end
  local reset_after = (capacity - tokens + cost) / per_ms
  local commit = function()
    -- State and TTL in one command, both numbers written exactly (now is now_ms(): see consume.script.ts).
    redis.call('SET', key, count_text(math.max(tokens - cost, 0)) .. ' ' .. now_ms_text(), 'PX', math.max(math.ceil(reset_after), 1))
  end
  return ok, tokens, (capacity - tokens) / per_ms, reset_after, retry, commit
end
`;

/**
 * Refund (tokens back) or penalty (tokens taken) on a token bucket, kept within 0 and `capacity`; a full bucket is
 * a missing key, as after a decision.
 *
 * adjust(key, capacity, refillPerSecond, delta, now) → remaining, resetMs
 */
export const TOKEN_BUCKET_ADJUST_LUA = `
local function token_bucket_adjust(key, capacity, rate, delta, now)
  local per_ms = rate / 1000
  local tokens = capacity
  local state = redis.call('GET', key)
  if state then
    local left, last = string.match(state, '^(%S+) (%S+)$')
    left, last = tonumber(left), tonumber(last)
    -- Counted on a clock ahead of this server's: counted from now, as in token_bucket.
    if last > now then last = now end
    tokens = math.min(capacity, left + (now - last) * per_ms)
  end
  local target = math.min(math.max(tokens - delta, 0), capacity)
  if target >= capacity then
    if state then redis.call('DEL', key) end
    return capacity, 0
  end
  local reset = (capacity - target) / per_ms
  redis.call('SET', key, count_text(target) .. ' ' .. now_ms_text(), 'PX', math.max(math.ceil(reset), 1))
  return target, reset
end
`;
