import { defineScript } from '../../core/scripts/redis-script';

/**
 * Adds items to a HyperLogLog and renews its TTL in one step (invariant 1).
 *
 * KEYS[1]  the counter
 * ARGV[1]  TTL in ms
 * ARGV[2…] the items
 * Returns  1 when the estimate changed, else 0.
 */
export const HLL_ADD = defineScript<number>(
  'hll_add',
  `
local changed = redis.call('PFADD', KEYS[1], unpack(ARGV, 2))
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return changed
`,
  { keys: 1 },
);
