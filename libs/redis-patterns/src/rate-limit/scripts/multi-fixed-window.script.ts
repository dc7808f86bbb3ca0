import { defineScript } from '../../core/scripts/redis-script';

/**
 * Several fixed windows on one identity (e.g. per second, per minute, per day): the specialised form of the generic
 * consume script for limiters whose policies are all fixed windows — same keys, state, arguments and replies, no
 * function table or closures, no clock. All-or-nothing: every counter is incremented, and if any exceeds its limit
 * every increment is undone in the same (atomic) script, so no other call sees an over-count and a denial consumes
 * nothing. The allowed path is INCRBY + PTTL per window (+ PEXPIRE on a window's first hit).
 *
 * KEYS[i]  the counter of policy i (units used in its window; its TTL is the window); one hash tag, so one slot
 * ARGV[1]  cost (integer ≥ 0)
 * ARGV[2]  nonce (unused: no sliding log here; kept so the arguments match the generic script)
 * ARGV[3i..3i+2]  per policy: algorithm code (always 1), limit, windowMs
 * Returns  { allowed (1|0), then per policy: remaining, resetMs, retryAfterMs }
 *
 * Runs alone or as one call of a batch (see RedisScript).
 */
export const multiFixedWindowScript = defineScript<number[]>(
  'rate_limit_mfw',
  `
local cost = tonumber(ARGV[1])
local count = #KEYS
local out = { 1 }
if cost == 0 then
  -- A peek: report without writing (INCRBY 0 would create counters).
  for i = 1, count do
    local limit, window = tonumber(ARGV[3 * i + 1]), tonumber(ARGV[3 * i + 2])
    -- A counter in its last millisecond (PTTL 0) belongs to a window that is over: it counts as none.
    local ttl = math.max(redis.call('PTTL', KEYS[i]), 0)
    local used = 0
    if ttl > 0 then used = tonumber(redis.call('GET', KEYS[i]) or '0') end
    local retry = 0
    if used > limit then
      out[1] = 0
      retry = ttl > 0 and ttl or window
    end
    out[3 * i - 1] = math.max(limit - used, 0)
    out[3 * i] = ttl
    out[3 * i + 1] = retry
  end
  return out
end
local used, ttls = {}, {}
for i = 1, count do
  -- ARGV strings rather than Lua numbers: a number argument costs Redis a %.17g conversion.
  used[i] = redis.call('INCRBY', KEYS[i], ARGV[1])
  ttls[i] = redis.call('PTTL', KEYS[i])
  if ttls[i] == 0 then
    -- The counter's last millisecond (Redis keeps a key through the millisecond it expires in): its window is over,
    -- so this hit is the first of the next one.
    redis.call('SET', KEYS[i], ARGV[1])
    used[i], ttls[i] = cost, -1
  end
  if ttls[i] > tonumber(ARGV[3 * i + 2]) then
    -- Longer than its window: the expiry was set on a clock ahead of this server's and came here as an absolute
    -- time (a failover, a restored dump). The window ends at most a window from now, with its count.
    redis.call('PEXPIRE', KEYS[i], ARGV[3 * i + 2])
    ttls[i] = tonumber(ARGV[3 * i + 2])
  end
  if used[i] > tonumber(ARGV[3 * i + 1]) then out[1] = 0 end
end
if out[1] == 1 then
  for i = 1, count do
    local ttl = ttls[i]
    if ttl < 0 then
      -- The window's first hit (or a counter that lost its TTL): the counter never outlives its window.
      redis.call('PEXPIRE', KEYS[i], ARGV[3 * i + 2])
      ttl = tonumber(ARGV[3 * i + 2])
    end
    out[3 * i - 1] = tonumber(ARGV[3 * i + 1]) - used[i]
    out[3 * i] = ttl
    out[3 * i + 1] = 0
  end
  return out
end
-- Denied: undo every increment. Only a counter this call created goes: one a refund left at 0 keeps its window.
for i = 1, count do
  local limit, window = tonumber(ARGV[3 * i + 1]), tonumber(ARGV[3 * i + 2])
  local before = used[i] - cost
  if before == 0 and ttls[i] < 0 then redis.call('DEL', KEYS[i]) else redis.call('DECRBY', KEYS[i], ARGV[1]) end
  local ttl = math.max(ttls[i], 0)
  out[3 * i - 1] = math.max(limit - before, 0)
  out[3 * i] = ttl
  out[3 * i + 1] = used[i] > limit and (ttl > 0 and ttl or window) or 0
end
return out
`,
);
