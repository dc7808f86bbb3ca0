/**
 * Leases several holders share (read leases, semaphore permits) are the members of one sorted set: owner token →
 * expiry in Redis ms. A member whose expiry has passed is no longer a holder, whether or not it was removed yet.
 *
 * `keep_alive(key, now)` sets the set's TTL to its latest expiry (at least 1 ms), so the key lives as long as its
 * longest lease and no longer (invariant 1). Call it after extending a member (which may shorten it); after adding
 * one, `keep_alive_for` below does with less. Put it in a prelude.
 */
export const KEEP_ALIVE_LUA = `
local function keep_alive(key, now)
  local last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  if last[2] then redis.call('PEXPIRE', key, math.max(1, math.ceil(tonumber(last[2]) - now))) end
end
`;

/**
 * `keep_alive_for(key, ttl_text)`: after adding a member that expires `ttl_text` ms from now, makes the set's TTL at
 * least that (one PTTL, and a PEXPIRE only when the set would expire first). Every add and extension keeps the set's
 * TTL at or above its members' latest expiry, so the new member is the only one to cover; reading the latest score
 * instead ({@link KEEP_ALIVE_LUA}) costs the server about 2 µs more per acquisition, a ZRANGE … WITHSCORES and a number
 * to format (bench/results/lease-script-cost.txt). An acquisition uses this one; an extension, which may shorten its
 * member, uses `keep_alive`.
 */
export const KEEP_ALIVE_FOR_LUA = `
local function keep_alive_for(key, ttl_text)
  if redis.call('PTTL', key) < tonumber(ttl_text) then redis.call('PEXPIRE', key, ttl_text) end
end
`;
