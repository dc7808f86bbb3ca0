/**
 * `next_fence(key, ttl_text)`: issues the fencing token of a new lease and returns it as exact text, in every script
 * that grants one (the lock, read and write leases, semaphore permits). Put it after SERVER_CLOCK_LUA in a prelude.
 *
 * The token is max(counter + 1, server time in µs): it keeps increasing even if the counter at `key` expires or is
 * lost (a restart without persistence, a failover that lost the last write), as long as the server clock does not
 * step back. The value is formatted with %.0f because Lua's tostring would round it.
 *
 * The counter is written and its previous value read in one command (SET … GET, Redis ≥ 6.2), and that write also
 * refreshes its TTL (`ttl_text` ms; '0' = no TTL, the documented exception): the server time is written first,
 * because it is almost always the answer (a token per µs would be needed to overtake the clock); only when the
 * previous value is not below it is the counter written again with previous + 1.
 */
export const NEXT_FENCE_LUA = `
local function next_fence(key, ttl_text)
  local fence, value = now_us()
  -- The TTL goes as its ARGV string: a Lua number argument costs Redis a %.17g conversion.
  local with_ttl = tonumber(ttl_text) > 0
  local last
  if with_ttl then
    last = redis.call('SET', key, value, 'PX', ttl_text, 'GET')
  else
    last = redis.call('SET', key, value, 'GET')
  end
  last = tonumber(last or '0') or 0
  if last >= fence then
    value = string.format('%.0f', last + 1)
    if with_ttl then
      redis.call('SET', key, value, 'PX', ttl_text)
    else
      redis.call('SET', key, value)
    end
  end
  return value
end
`;
