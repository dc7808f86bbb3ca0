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
    -- A negative elapsed time means the state was written under a clock ahead of this one (a failover):
    -- no refill rather than a negative one.
    local elapsed = math.max(now - tonumber(last), 0)
    tokens = math.min(capacity, tonumber(left) + elapsed * per_ms)
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
