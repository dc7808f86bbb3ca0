import { SERVER_CLOCK_LUA } from '../../core/scripts/lua/server-clock.lua';
import { defineScript } from '../../core/scripts/redis-script';
import { KEEP_ALIVE_LUA } from './shared-lease.lua';

/**
 * Extends one shared lease (a read lease, a semaphore permit: see KEEP_ALIVE_LUA) only if its holder still has it.
 *
 * KEYS[1] the sorted set of leases (owner token → expiry in Redis ms)
 * ARGV[1] owner token, ARGV[2] new TTL in ms (from now, by the server's clock)
 * Returns 1 when extended, 0 when the lease is gone or has expired.
 *
 * An expired member is removed, never revived: acquisitions already count it as free, so another holder may have
 * taken its place.
 *
 * Runs alone or as one call of a batch (see RedisScript).
 */
export const EXTEND_SHARED_LEASE_SCRIPT = defineScript<number>(
  'shared_lease_extend',
  `
local now = now_ms()
local expiry = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not expiry then return 0 end
if tonumber(expiry) <= now then
  redis.call('ZREM', KEYS[1], ARGV[1])
  return 0
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
keep_alive(KEYS[1], now)
return 1
`,
  { keys: 1, args: 2, prelude: SERVER_CLOCK_LUA + KEEP_ALIVE_LUA },
);
