import { defineScript } from '../../core/scripts/redis-script';

/**
 * Stores a first call's outcome under its key, if the caller still owns the claim.
 *
 * KEYS[1] the record
 * ARGV[1] owner token, ARGV[2] result TTL in ms, ARGV[3] meta (JSON), ARGV[4] body ('' = undefined),
 * ARGV[5] '1' when the body holds typed values
 * Returns 1 when stored, 0 when the claim is gone (expired after the process stalled past the in-progress TTL)
 * or belongs to another call.
 *
 * The owner check and the write are one step: a call whose claim expired and was taken over must not overwrite the
 * new owner's record. The result TTL replaces the in-progress one in the same script (invariant 1), counted from
 * completion.
 *
 * Runs alone or as one call of a batch (see RedisScript).
 */
export const COMPLETE_IDEMPOTENCY_SCRIPT = defineScript<number>(
  'idempotency_complete',
  `
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then
  return 0
end
redis.call('HDEL', KEYS[1], 'owner')
redis.call('HSET', KEYS[1], 'state', 'done', 'meta', ARGV[3], 'body', ARGV[4], 'typed', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`,
  { keys: 1, args: 5 },
);
