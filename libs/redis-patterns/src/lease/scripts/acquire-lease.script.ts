import { SERVER_CLOCK_LUA } from '../../core/scripts/lua/server-clock.lua';
import { defineScript } from '../../core/scripts/redis-script';
import { NEXT_FENCE_LUA } from './next-fence.lua';

/**
 * Takes a lock and issues its fencing token in one round trip.
 *
 * KEYS[1] lock key, KEYS[2] fencing counter (same hash tag)
 * ARGV[1] owner token, ARGV[2] lock TTL in ms, ARGV[3] fencing counter TTL in ms (0 = no TTL)
 * Returns {1, fencingToken (string)} when taken, {0, remaining PTTL of the holder in ms} when held.
 *
 * SET NX PX and the counter update happen in one script, so no other client can take the lock between them and
 * every holder's token is greater than every earlier holder's (see NEXT_FENCE_LUA). Time comes from Redis TIME,
 * never from the app (invariant 3). A taken lock costs 2 commands inside the script (SET NX, SET GET), plus one
 * TIME per batch.
 *
 * Runs alone or as one call of a batch (see RedisScript): concurrent lock operations share one EVALSHA.
 */
export const ACQUIRE_LEASE_SCRIPT = defineScript<[number, string | number]>(
  'lock_acquire',
  `
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return {0, redis.call('PTTL', KEYS[1])}
end
return {1, next_fence(KEYS[2], ARGV[3])}
`,
  // now_us(): server time in µs and as text, read with TIME and formatted once per script run; next_fence() uses it.
  { keys: 2, args: 3, prelude: SERVER_CLOCK_LUA + NEXT_FENCE_LUA },
);
