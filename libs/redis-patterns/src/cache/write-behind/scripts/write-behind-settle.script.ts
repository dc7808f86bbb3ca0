import { defineScript } from '../../../core/scripts/redis-script';

/**
 * Settles a change record once its writer has it (`flushed`) or it is dead-lettered (`dead`), if no newer write
 * replaced it meanwhile (that one is still pending, with its own announcement): the payload goes, the version stays
 * for `keepMs` so an older write arriving late is refused.
 *
 * KEYS[1] the change record; ARGV[1] the version settled, ARGV[2] `flushed` | `dead`, ARGV[3] keepMs
 * Returns 1 settled, 0 a newer write is pending
 */
export const WRITE_BEHIND_SETTLE_SCRIPT = defineScript<number>(
  'write_behind_settle',
  `
if redis.call('HGET', KEYS[1], 'v') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 's', ARGV[2])
redis.call('HDEL', KEYS[1], 'p')
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`,
  { keys: 1, args: 3 },
);

/**
 * Counts a failed attempt of a pending change (the writer threw); the count is shared by every instance.
 *
 * KEYS[1] the change record; ARGV[1] the version attempted
 * Returns the attempts so far, or -1 when a newer write replaced that version
 */
export const WRITE_BEHIND_FAILED_SCRIPT = defineScript<number>(
  'write_behind_failed',
  `
if redis.call('HGET', KEYS[1], 'v') ~= ARGV[1] then return -1 end
return redis.call('HINCRBY', KEYS[1], 'a', 1)
`,
  { keys: 1, args: 1 },
);
