/**
 * `now_ms()`: Redis server time in ms (fractional), read with TIME once per batch. The items of a batch run inside
 * one atomic script, so one reading serves them all (Redis itself fixes the time used for key expiry at the start
 * of a script), and each item saves a TIME call. Server time, never the app's clock: invariant 3.
 */
export const REDIS_CLOCK_LUA = `
local batch_now
local function now_ms()
  if not batch_now then
    local time = redis.call('TIME')
    batch_now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
  end
  return batch_now
end
`;
