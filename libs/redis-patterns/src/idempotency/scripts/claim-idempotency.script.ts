import { defineScript } from '../../core/scripts/redis-script';

/** The claim script's reply: claimed, a different payload, still running (with its remaining TTL), or done. */
export type ClaimReply = ['claimed'] | ['mismatch'] | ['running', number] | ['done', string | null, string | null, string | null];

/**
 * Claims an idempotency key for a first call, or answers what the key already holds — one round trip.
 *
 * KEYS[1] the record (a hash: state, owner, fp; and meta, body, typed once done)
 * ARGV[1] owner token (128 random bits), ARGV[2] request fingerprint ('' = none), ARGV[3] in-progress TTL in ms
 * Returns {'claimed'} when the caller now owns the key; {'mismatch'} when the key was used with another
 * fingerprint; {'running', PTTL ms} while another call runs; {'done', meta, body, typed} once one completed.
 *
 * Reading and claiming must be one step: with a GET then a SET NX, two duplicates could both find the key free,
 * and the loser would only learn it after running. The record and its TTL are written together (invariant 1): the
 * in-progress TTL is the lock TTL, so a caller that dies mid-call lets a retry run once it passes. The fingerprint
 * is compared before the state: a different payload is refused (422) whether the first call runs or is done.
 *
 * Runs alone or as one call of a batch (see RedisScript): concurrent duplicates share one EVALSHA.
 */
export const CLAIM_IDEMPOTENCY_SCRIPT = defineScript<ClaimReply>(
  'idempotency_claim',
  `
local found = redis.call('HMGET', KEYS[1], 'state', 'fp')
local state = found[1]
if not state then
  redis.call('HSET', KEYS[1], 'state', 'running', 'owner', ARGV[1], 'fp', ARGV[2])
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  return {'claimed'}
end
local fp = found[2] or ''
-- A side without a fingerprint (fingerprint: false) accepts any payload.
if ARGV[2] ~= '' and fp ~= '' and fp ~= ARGV[2] then
  return {'mismatch'}
end
if state == 'running' then
  return {'running', redis.call('PTTL', KEYS[1])}
end
local stored = redis.call('HMGET', KEYS[1], 'meta', 'body', 'typed')
-- false, not nil: a nil would end the reply array early.
return {'done', stored[1] or false, stored[2] or false, stored[3] or false}
`,
  { keys: 1, args: 3 },
);
