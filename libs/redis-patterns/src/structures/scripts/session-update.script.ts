import { defineScript } from '../../core/scripts/redis-script';

/**
 * Field-level update of an existing session. The existence check and the writes are one script, so an update
 * still in flight when the session is destroyed (or expires) finds no key and writes nothing: a logout can never
 * be undone by a slow request. HSET/HDEL keep the key's TTL.
 *
 * KEYS[1]  the session hash
 * ARGV[1]  n, the number of field/value pairs that follow
 * ARGV[2 … 1+2n]  field, value pairs to set
 * ARGV[2+2n …]    fields to delete
 * Returns  1 when the session existed and was updated, 0 when it does not exist.
 */
export const SESSION_UPDATE = defineScript<number>(
  'session_update',
  `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local n = tonumber(ARGV[1])
for i = 2, 1 + 2 * n, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
for i = 2 + 2 * n, #ARGV do redis.call('HDEL', KEYS[1], ARGV[i]) end
return 1
`,
  { keys: 1 },
);
