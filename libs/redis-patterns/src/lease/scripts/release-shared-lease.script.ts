import { SERVER_CLOCK_LUA } from '../../core/scripts/lua/server-clock.lua';
import { defineScript } from '../../core/scripts/redis-script';

/**
 * Gives back one shared lease (a read lease, a semaphore permit, a writer's waiting mark): removes the owner's member.
 *
 * KEYS[1] the sorted set of leases (owner token → expiry in Redis ms)
 * ARGV[1] owner token
 * Returns 1 when the lease was still held, 0 when it was gone or had expired (removed all the same). Removing the
 * last member deletes the key.
 *
 * Runs alone or as one call of a batch (see RedisScript).
 */
export const RELEASE_SHARED_LEASE_SCRIPT = defineScript<number>(
  'shared_lease_release',
  `
local expiry = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not expiry then return 0 end
redis.call('ZREM', KEYS[1], ARGV[1])
if tonumber(expiry) <= now_ms() then return 0 end
return 1
`,
  { keys: 1, args: 1, prelude: SERVER_CLOCK_LUA },
);
