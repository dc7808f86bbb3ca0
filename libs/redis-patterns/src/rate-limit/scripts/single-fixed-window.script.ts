import { defineScript } from '../../core/scripts/redis-script';

/**
 * Fixed window, one policy: the specialised form of `fixed-window.lua.ts` (no function table, no closures, as few
 * commands as possible). The allowed path, the hot one, is INCRBY + PTTL (+ PEXPIRE on the window's first hit).
 *
 * KEYS[1]  the counter (a string holding the units used in the window; its TTL is the window)
 * ARGV[1]  cost (integer ≥ 0)
 * ARGV[2]  limit
 * ARGV[3]  windowMs
 * Returns  { allowed (1|0), remaining, resetMs, retryAfterMs }
 *
 * Runs alone or as one call of a batch (see RedisScript): concurrent decisions share one EVALSHA.
 *
 * No clock is read: the window is the key's TTL, kept by the server that owns the key (invariant 3 holds). Counting
 * first and undoing on a denial is safe because the script is atomic: no other call sees the over-count.
 */
export const singleFixedWindowScript = defineScript<number[]>(
  'rate_limit_fw',
  `
local key = KEYS[1]
local cost = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
if cost == 0 then
  -- A peek: report without writing (INCRBY 0 would create a counter). A counter in its last millisecond (PTTL 0:
  -- Redis keeps a key through the millisecond it expires in) belongs to a window that is over: it counts as none.
  local ttl = math.max(redis.call('PTTL', key), 0)
  local count = 0
  if ttl > 0 then count = tonumber(redis.call('GET', key) or '0') end
  if count > limit then return { 0, 0, ttl, ttl > 0 and ttl or tonumber(ARGV[3]) } end
  return { 1, limit - count, ttl, 0 }
end
-- Numbers forwarded to Redis are passed as the ARGV strings: a Lua number argument costs a %.17g conversion.
local count = redis.call('INCRBY', key, ARGV[1])
local ttl = redis.call('PTTL', key)
if ttl == 0 then
  -- The counter's last millisecond (Redis keeps a key through the millisecond it expires in): its window is over,
  -- so this hit is the first of the next one. Counted in the old window, it would vanish with it (or be denied for
  -- a whole window more).
  redis.call('SET', key, ARGV[1])
  count, ttl = cost, -1
end
if ttl > tonumber(ARGV[3]) then
  -- Longer than a window: the expiry was set on a clock ahead of this server's and came here as an absolute time
  -- (a failover, a restored dump). Kept, the window would last as much longer as the clocks differ; it ends at
  -- most a window from now, with its count.
  redis.call('PEXPIRE', key, ARGV[3])
  ttl = tonumber(ARGV[3])
end
if count <= limit then
  if ttl < 0 then
    -- The window's first hit (or a counter that somehow lost its TTL): the counter never outlives its window.
    redis.call('PEXPIRE', key, ARGV[3])
    ttl = tonumber(ARGV[3])
  end
  return { 1, limit - count, ttl, 0 }
end
-- Denied: undo, so a denial consumes nothing. Only a counter this call created goes: one a refund left at 0 keeps
-- its window.
local before = count - cost
if before == 0 and ttl < 0 then redis.call('DEL', key) else redis.call('DECRBY', key, ARGV[1]) end
if ttl > 0 then return { 0, math.max(limit - before, 0), ttl, ttl } end
return { 0, math.max(limit - before, 0), 0, tonumber(ARGV[3]) }
`,
  { keys: 1, args: 3 },
);
