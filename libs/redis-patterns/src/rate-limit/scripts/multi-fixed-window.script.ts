import { defineScript } from '../../core/scripts/redis-script';
import { FIXED_WINDOW_LUA } from './fixed-window.lua';

/**
 * Fixed windows only on one identity (one, or per second, per minute, per day), without blocks: the consume script's
 * all-or-nothing decision written with the fixed window's own steps (fixed-window.lua.ts: count every window, then
 * settle each: start an allowed call's new windows, or take a denied call's units out again), with no clock, no
 * function table and no closure per policy. Same keys, arguments and replies as the consume script.
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
local n = #KEYS
local out = { 1 }
if cost == 0 then
  -- A peek writes nothing: each window's check alone.
  for i = 1, n do
    local ok, available, reset_now, _, retry = fixed_window(KEYS[i], tonumber(ARGV[3 * i + 1]), tonumber(ARGV[3 * i + 2]), 0)
    if not ok then out[1] = 0 end
    out[3 * i - 1], out[3 * i], out[3 * i + 1] = math.max(available, 0), reset_now, retry
  end
  return out
end
local counts, ttls = {}, {}
for i = 1, n do
  counts[i], ttls[i] = count_fixed_window(KEYS[i], tonumber(ARGV[3 * i + 2]), cost, ARGV[3 * i + 2], ARGV[1])
  if counts[i] > tonumber(ARGV[3 * i + 1]) then out[1] = 0 end
end
local allowed = out[1] == 1
for i = 1, n do
  local limit, window, count, ttl = tonumber(ARGV[3 * i + 1]), tonumber(ARGV[3 * i + 2]), counts[i], ttls[i]
  settle_fixed_window(KEYS[i], ARGV[3 * i + 2], cost, ARGV[1], count, ttl, allowed)
  local left = math.max(ttl, 0)
  if allowed then
    out[3 * i - 1], out[3 * i], out[3 * i + 1] = limit - count, left > 0 and left or window, 0
  else
    out[3 * i - 1], out[3 * i] = math.max(limit - count + cost, 0), left
    out[3 * i + 1] = count > limit and (left > 0 and left or window) or 0
  end
end
return out
`,
  { prelude: FIXED_WINDOW_LUA },
);
