import { defineBatchedScript } from '../../core/scripts/batched-script';

/**
 * Compare-and-delete: releases a lock only if the caller still owns it.
 *
 * KEYS[1] lock key
 * ARGV[1] owner token
 * Returns 1 when deleted, 0 when the key is gone or belongs to another holder.
 *
 * The GET and the DEL must be one atomic step: with two commands, the lock could expire and be taken by another
 * client between them, and we would delete that client's lock (invariant 2).
 *
 * One item of a batch (see defineBatchedScript): concurrent lock operations share one EVALSHA.
 */
export const RELEASE_LOCK_SCRIPT = defineBatchedScript<number>(
  'lock_release',
  `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
`,
  '',
  { keys: 1, args: 1 },
);
