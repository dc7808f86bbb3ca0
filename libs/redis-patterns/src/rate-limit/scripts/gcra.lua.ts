/**
 * GCRA: one string key holding the theoretical arrival time (TAT, Redis-time ms). Each unit moves the TAT forward by
 * the emission interval (periodMs / limit); a call is allowed while the TAT stays within `burst` intervals of now.
 *
 * check(key, burst, intervalMs, cost, now) → ok, available, resetNowMs, resetAfterMs, retryMs, commit
 */
export const GCRA_LUA = `
local function gcra(key, burst, interval, cost, now)
  local tolerance = burst * interval
  local tat = tonumber(redis.call('GET', key) or '0')
  if tat < now then tat = now end
  -- A TAT beyond now + tolerance cannot come from this clock: it was written under one that ran ahead
  -- (a failover). Capping it bounds the lock-out to one full burst.
  if tat > now + tolerance then tat = now + tolerance end
  local new_tat = tat + cost * interval
  -- 1 µs of slack absorbs floating-point error in interval sums (periodMs / limit is rarely exact).
  local wait = new_tat - tolerance - now
  local ok = wait <= 0.001
  local retry = 0
  if not ok then
    if cost * interval > tolerance + 0.001 then retry = tolerance else retry = math.max(wait, 1) end
  end
  local available = (tolerance - (tat - now)) / interval + 1e-6
  local commit = function()
    -- Value and TTL in one command: the key lives exactly as long as it constrains anyone.
    redis.call('SET', key, new_tat, 'PX', math.max(math.ceil(new_tat - now), 1))
  end
  return ok, available, tat - now, new_tat - now, retry, commit
end
`;
