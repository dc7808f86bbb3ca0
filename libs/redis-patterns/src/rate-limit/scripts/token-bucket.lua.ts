/**
 * Token bucket: a hash with the tokens left (`t`, fractional) and the Redis time they were counted at (`ts`).
 * Tokens refill continuously; a missing key is a full bucket, so the key expires once it would be full again.
 *
 * check(key, capacity, refillPerSecond, cost, now) → ok, available, resetNowMs, resetAfterMs, retryMs, commit
 */
export const TOKEN_BUCKET_LUA = `
local function token_bucket(key, capacity, rate, cost, now)
  local per_ms = rate / 1000
  local state = redis.call('HMGET', key, 't', 'ts')
  local tokens = capacity
  local last = tonumber(state[2])
  if last then
    -- A negative elapsed time means the state was written under a clock ahead of this one (a failover):
    -- no refill rather than a negative one.
    local elapsed = math.max(now - last, 0)
    tokens = math.min(capacity, tonumber(state[1]) + elapsed * per_ms)
  end
  local ok = cost <= tokens + 1e-9
  local retry = 0
  if not ok then
    if cost > capacity then retry = capacity / per_ms else retry = math.max((cost - tokens) / per_ms, 1) end
  end
  local reset_after = (capacity - tokens + cost) / per_ms
  local commit = function()
    redis.call('HSET', key, 't', math.max(tokens - cost, 0), 'ts', now)
    redis.call('PEXPIRE', key, math.max(math.ceil(reset_after), 1))
  end
  return ok, tokens, (capacity - tokens) / per_ms, reset_after, retry, commit
end
`;
