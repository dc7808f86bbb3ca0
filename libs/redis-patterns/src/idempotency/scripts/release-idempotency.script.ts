import { defineScript } from '../../core/scripts/redis-script';

/**
 * Gives up a claim after a failed first call, so a retry runs again: deletes the record only if the caller still
 * owns it.
 *
 * KEYS[1] the record
 * ARGV[1] owner token
 * Returns 1 when deleted, 0 when the claim is gone or another call's.
 *
 * Compare-and-delete in one script: between a separate read and DEL, the claim could expire and be taken by a
 * retry, whose record the DEL would then remove (invariant 2). The owner field exists only while running, so a
 * completed record is never deleted.
 *
 * Runs alone or as one call of a batch (see RedisScript).
 */
export const RELEASE_IDEMPOTENCY_SCRIPT = defineScript<number>(
  'idempotency_release',
  `
if redis.call('HGET', KEYS[1], 'owner') == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
`,
  { keys: 1, args: 1 },
);
