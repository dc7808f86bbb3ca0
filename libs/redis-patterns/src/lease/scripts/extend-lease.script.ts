import { defineScript } from '../../core/scripts/redis-script';

/**
 * Compare-and-PEXPIRE: extends a lock only if the caller still owns it.
 *
 * KEYS[1] lock key
 * ARGV[1] owner token, ARGV[2] new TTL in ms (from now)
 * Returns 1 when extended, 0 when the key is gone or belongs to another holder.
 *
 * One script for the same reason as release: an extension must never revive or prolong someone else's lock.
 *
 * Runs alone or as one call of a batch (see RedisScript): concurrent lock operations share one EVALSHA.
 */
export const EXTEND_LEASE_SCRIPT = defineScript<number>(
  'lock_extend',
  `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
`,
  { keys: 1, args: 2 },
);
