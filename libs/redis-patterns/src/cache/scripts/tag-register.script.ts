import { defineScript } from '../../core/scripts/redis-script';

/**
 * Adds a key to a tag's member set and stretches the set's TTL (and the epoch's) to cover the member, in one step.
 * With an expected epoch (a fill that read it before loading), nothing is registered when an invalidation has
 * bumped the epoch meanwhile: the loaded value may predate the invalidation.
 *
 * KEYS[1] tag member set, KEYS[2] tag epoch (one hash tag).
 * ARGV[1] member (the value key), ARGV[2] member TTL (ms), ARGV[3] expected epoch or ''.
 * Returns the tag's current epoch (0 when never invalidated), or -1 when it differs from the expected one.
 */
export const TAG_REGISTER_SCRIPT = defineScript<number>(
  'cache_tag_register',
  `
local e = tonumber(redis.call('GET', KEYS[2]) or '0')
if ARGV[3] ~= '' and e ~= tonumber(ARGV[3]) then return -1 end
local px = tonumber(ARGV[2])
redis.call('SADD', KEYS[1], ARGV[1])
if redis.call('PTTL', KEYS[1]) < px then redis.call('PEXPIRE', KEYS[1], px) end
if e > 0 and redis.call('PTTL', KEYS[2]) < px then redis.call('PEXPIRE', KEYS[2], px) end
return e
`,
  { keys: 2 },
);
