import { defineScript } from '../../core/scripts/redis-script';

/**
 * LPUSH + LTRIM + PEXPIRE as one atomic step: a reader never sees the list over its cap, and the list never
 * exists without a TTL (invariant 1).
 *
 * KEYS[1]  the list
 * ARGV[1]  maxLength
 * ARGV[2]  TTL in ms
 * ARGV[3…] items, oldest first (the last one ends up at index 0)
 * Returns  the list's length after trimming.
 */
export const CAPPED_LIST_PUSH = defineScript<number>(
  'capped_list_push',
  `
redis.call('LPUSH', KEYS[1], unpack(ARGV, 3))
redis.call('LTRIM', KEYS[1], 0, tonumber(ARGV[1]) - 1)
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return redis.call('LLEN', KEYS[1])
`,
  { keys: 1 },
);
