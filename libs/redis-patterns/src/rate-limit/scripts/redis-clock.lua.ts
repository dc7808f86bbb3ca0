/**
 * `now_ms()`: Redis server time in ms (fractional), read with TIME once per batch (`now_ms_text()`: the same as
 * exact text; `count_text(x)`: a count as exact text). The items of a batch run inside
 * one atomic script, so one reading serves them all (Redis itself fixes the time used for key expiry at the start
 * of a script), and each item saves a TIME call. Server time, never the app's clock: invariant 3.
 */
export const REDIS_CLOCK_LUA = `
local batch_now, batch_now_text
local function now_ms()
  if not batch_now then
    local time = redis.call('TIME')
    batch_now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
  end
  return batch_now
end
-- now_ms() as exact text (%.17g; tostring would round it to 0.1 ms), formatted once per batch.
local function now_ms_text()
  if not batch_now_text then batch_now_text = string.format('%.17g', now_ms()) end
  return batch_now_text
end
-- The exact text of a token count: whole counts (the usual case) with the cheaper %d, others with %.17g.
local function count_text(x)
  if x % 1 == 0 and x < 1e15 then return string.format('%d', x) end
  return string.format('%.17g', x)
end
`;
