import { SERVER_CLOCK_LUA } from '../../core/scripts/lua/server-clock.lua';
import { defineScript } from '../../core/scripts/redis-script';
import { NEXT_FENCE_LUA } from '../../lease/scripts/next-fence.lua';
import { KEEP_ALIVE_FOR_LUA } from '../../lease/scripts/shared-lease.lua';

/**
 * Takes the write lease of a read-write lock, with its fencing token, in one round trip; or, when readers or a
 * writer hold the lock, marks the caller as a waiting writer.
 *
 * KEYS[1] writer, KEYS[2] readers, KEYS[3] waiting writers, KEYS[4] fencing counter (see ACQUIRE_READ_SCRIPT)
 * ARGV[1] owner token, ARGV[2] lease TTL in ms, ARGV[3] fencing counter TTL in ms (0 = no TTL),
 * ARGV[4] waiter id (stable across the attempts of one wait; '' for none), ARGV[5] waiting mark TTL in ms (0 = no mark)
 * Returns {1, fencingToken} when taken; {0, ms until the holder(s) expire at the latest} when held.
 *
 * The mark keeps new readers out while the writer waits (writer preference) and lives ARGV[5] ms, refreshed by each
 * attempt: a writer that stops trying (it gave up or crashed) stops blocking readers within that time. Taking the
 * lock removes the writer's own mark; other waiting writers keep theirs (no order among writers).
 */
export const ACQUIRE_WRITE_SCRIPT = defineScript<[number, string | number]>(
  'rw_acquire_write',
  `
local now = now_ms()
local retry = redis.call('PTTL', KEYS[1])
if retry == -2 then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
  local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
  if not last[2] then
    redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
    if ARGV[4] ~= '' then redis.call('ZREM', KEYS[3], ARGV[4]) end
    return {1, next_fence(KEYS[4], ARGV[3])}
  end
  -- Readers hold it: the last of them is gone by its expiry at the latest.
  retry = math.ceil(tonumber(last[2]) - now)
end
if tonumber(ARGV[5]) > 0 then
  redis.call('ZADD', KEYS[3], now + tonumber(ARGV[5]), ARGV[4])
  keep_alive_for(KEYS[3], ARGV[5])
end
return {0, math.max(retry, 0)}
`,
  { keys: 4, args: 5, prelude: SERVER_CLOCK_LUA + NEXT_FENCE_LUA + KEEP_ALIVE_FOR_LUA },
);
