import { SERVER_CLOCK_LUA } from '../../core/scripts/lua/server-clock.lua';
import { defineScript } from '../../core/scripts/redis-script';
import { NEXT_FENCE_LUA } from '../../lease/scripts/next-fence.lua';
import { KEEP_ALIVE_FOR_LUA } from '../../lease/scripts/shared-lease.lua';

/**
 * Takes a read lease of a read-write lock, with its fencing token, in one round trip.
 *
 * KEYS[1] writer (string: the writer's owner token), KEYS[2] readers (sorted set: owner token → expiry in Redis ms),
 * KEYS[3] waiting writers (sorted set: waiter id → expiry of its mark), KEYS[4] the resource's fencing counter
 * (the mutex's); all under the resource's hash tag
 * ARGV[1] owner token, ARGV[2] lease TTL in ms, ARGV[3] fencing counter TTL in ms (0 = no TTL)
 * Returns {1, fencingToken} when taken; {0, the writer's PTTL} while a writer holds the lock; {0, 0} while a writer
 * waits for it.
 *
 * Writer preference: a live waiting mark refuses new readers (readers already in keep their leases), so a stream of
 * overlapping readers cannot starve a writer. Marks are counted, not pruned: the read path writes nothing else.
 */
export const ACQUIRE_READ_SCRIPT = defineScript<[number, string | number]>(
  'rw_acquire_read',
  `
local writer = redis.call('PTTL', KEYS[1])
if writer ~= -2 then return {0, math.max(writer, 0)} end
if redis.call('ZCOUNT', KEYS[3], '(' .. now_ms_text(), '+inf') > 0 then return {0, 0} end
local now = now_ms()
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), ARGV[1])
keep_alive_for(KEYS[2], ARGV[2])
return {1, next_fence(KEYS[4], ARGV[3])}
`,
  { keys: 4, args: 3, prelude: SERVER_CLOCK_LUA + NEXT_FENCE_LUA + KEEP_ALIVE_FOR_LUA },
);
