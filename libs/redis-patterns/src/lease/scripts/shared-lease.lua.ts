/**
 * Leases several holders share (read leases, semaphore permits) are the members of one sorted set: owner token →
 * expiry in Redis ms. A member whose expiry has passed is no longer a holder, whether or not it was removed yet.
 *
 * `keep_alive(key, now)` sets the set's TTL to its latest expiry (at least 1 ms), so the key lives as long as its
 * longest lease and no longer (invariant 1). Call it after adding or extending a member. Put it in a prelude.
 */
export const KEEP_ALIVE_LUA = `
local function keep_alive(key, now)
  local last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  if last[2] then redis.call('PEXPIRE', key, math.max(1, math.ceil(tonumber(last[2]) - now))) end
end
`;
