/**
 * `rescore_future_hits(key, now, window)` for the sliding-log scripts. Hits stamped on a clock ahead of this
 * server's (a failover, a restored dump) would stay in the window until this clock caught up: a lock-out as long as
 * the clocks differ. Counted as made now, they leave a window from now. The scripts call it on a denial only, where
 * the lock-out shows, so the allowed path costs nothing more. Needs `now_ms_text()` (redis-clock.lua.ts).
 */
export const FUTURE_HITS_LUA = `
local function rescore_future_hits(key, now, window)
  local future = redis.call('ZRANGEBYSCORE', key, '(' .. now_ms_text(), '+inf')
  local args = {}
  for i = 1, #future do
    args[#args + 1] = now
    args[#args + 1] = future[i]
    if #args >= 1000 then redis.call('ZADD', key, unpack(args)); args = {} end
  end
  if #args > 0 then redis.call('ZADD', key, unpack(args)) end
  redis.call('PEXPIRE', key, window)
end
`;
