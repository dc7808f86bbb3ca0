import { defineScript } from '../../core/scripts/redis-script';

/**
 * Keeps a running first call's claim alive (its heartbeat): compare-and-PEXPIRE on the owner token.
 *
 * KEYS[1] the record
 * ARGV[1] owner token, ARGV[2] in-progress TTL in ms (from now)
 * Returns 1 when extended, 0 when the claim is gone or another call's.
 *
 * Owner-checked in one script, so a late heartbeat can never prolong a completed record (its owner field is gone)
 * or someone else's claim.
 *
 * Runs alone or as one call of a batch (see RedisScript).
 */
export const EXTEND_IDEMPOTENCY_SCRIPT = defineScript<number>(
  'idempotency_extend',
  `
if redis.call('HGET', KEYS[1], 'owner') == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
`,
  { keys: 1, args: 2 },
);
