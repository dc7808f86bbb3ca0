import { defineBatchedScript } from '../../core/scripts/batched-script';
import { REDIS_CLOCK_LUA } from './redis-clock.lua';

/**
 * GCRA, one policy: the specialised form of `gcra.lua.ts` (same state, same arithmetic, no function table or
 * closures): TIME + GET + SET.
 *
 * KEYS[1]  the theoretical arrival time (TAT, Redis-time ms, a string with a TTL)
 * ARGV[1]  cost (may be fractional)
 * ARGV[2]  burst
 * ARGV[3]  emission interval in ms (periodMs / limit)
 * Returns  { allowed (1|0), remaining, resetMs, retryAfterMs }
 *
 * One item of a batch (see defineBatchedScript): concurrent decisions share one EVALSHA.
 *
 * Time is Redis TIME, read once per batch (redis-clock.lua.ts; invariant 3): every instance, whatever its clock,
 * sees the same TAT.
 */
export const singleGcraScript = defineBatchedScript<number[]>(
  'rate_limit_gcra',
  `
local key = KEYS[1]
local cost, burst, interval = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local now = now_ms()
local tolerance = burst * interval
local tat = tonumber(redis.call('GET', key) or '0')
if tat < now then tat = now end
-- A TAT beyond now + tolerance was written under a clock that ran ahead (a failover): cap the lock-out.
if tat > now + tolerance then tat = now + tolerance end
local new_tat = tat + cost * interval
local available = (tolerance - (tat - now)) / interval + 1e-6
-- 1 µs of slack absorbs floating-point error in interval sums (periodMs / limit is rarely exact).
local wait = new_tat - tolerance - now
if wait <= 0.001 then
  if cost == 0 then return { 1, math.max(math.floor(available), 0), math.ceil(tat - now), 0 } end
  -- Value and TTL in one command: the key lives exactly as long as it constrains anyone.
  redis.call('SET', key, new_tat, 'PX', math.max(math.ceil(new_tat - now), 1))
  return { 1, math.max(math.floor(available - cost), 0), math.ceil(new_tat - now), 0 }
end
local retry = tolerance
if cost * interval <= tolerance + 0.001 then retry = math.max(wait, 1) end
return { 0, math.max(math.floor(available), 0), math.ceil(tat - now), math.ceil(retry) }
`,
  REDIS_CLOCK_LUA,
  { keys: 1, args: 3 },
);
