import { defineScript } from '../../core/scripts/redis-script';

/**
 * Folds HyperLogLog values read from other keys (possibly other cluster slots) into `KEYS[1]`, so multi-key
 * count and merge never issue a cross-slot command (invariant 4). Each value is written to a scratch key in the
 * target's slot and PFMERGEd; every key written carries a TTL (invariant 1), and the scratch key is deleted.
 *
 * KEYS[1]  the target: the merge destination, or an accumulator for a count
 * KEYS[2]  a scratch key in the same slot
 * ARGV[1]  'merge' (keep the target, renew its TTL) or 'count' (return PFCOUNT, delete the accumulator)
 * ARGV[2]  TTL of the target in ms
 * ARGV[3…] raw HyperLogLog values (GET replies)
 * Returns  the cardinality estimate of the target.
 */
export const HLL_FOLD = defineScript<number>(
  'hll_fold',
  `
redis.call('PFADD', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
for i = 3, #ARGV do
  redis.call('SET', KEYS[2], ARGV[i], 'PX', 10000)
  redis.call('PFMERGE', KEYS[1], KEYS[1], KEYS[2])
end
redis.call('DEL', KEYS[2])
local count = redis.call('PFCOUNT', KEYS[1])
if ARGV[1] == 'count' then redis.call('DEL', KEYS[1]) else redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return count
`,
  { keys: 2 },
);
