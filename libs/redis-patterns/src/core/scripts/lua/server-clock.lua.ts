/**
 * The one server clock of every script (invariant 3: time comes from Redis, never from the app, so instances with
 * skewed clocks agree). TIME is read once per script run — a batch of items runs inside one atomic script, and
 * Redis itself fixes the time used for key expiry at the start of a script — and each reading is derived from it:
 * - `now_ms()`: milliseconds, fractional; `now_ms_text()`: the same as exact text (%.17g; tostring would round it to
 *   0.1 ms), formatted once;
 * - `now_us()`: microseconds and their exact text (%.0f), formatted once.
 * Prepend it to a script (or a batched script's prelude).
 */
export const SERVER_CLOCK_LUA = `
local clock_s, clock_us, clock_ms_text, clock_us_text
local function read_clock()
  if not clock_s then
    local time = redis.call('TIME')
    clock_s, clock_us = tonumber(time[1]), tonumber(time[2])
  end
end
local function now_ms()
  read_clock()
  return clock_s * 1000 + clock_us / 1000
end
local function now_ms_text()
  if not clock_ms_text then clock_ms_text = string.format('%.17g', now_ms()) end
  return clock_ms_text
end
local function now_us()
  read_clock()
  local us = clock_s * 1000000 + clock_us
  if not clock_us_text then clock_us_text = string.format('%.0f', us) end
  return us, clock_us_text
end
`;
