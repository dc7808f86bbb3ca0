import { defineScript } from '../../core/scripts/redis-script';

/**
 * Materialises a weekly board as the sum of its daily boards, with a TTL, in one step. All keys share the board's
 * hash tag, so the union is cluster-safe (invariant 4).
 *
 * KEYS[1]     the weekly board (destination)
 * KEYS[2 …]   the daily boards
 * ARGV[1]     TTL of the weekly board in ms
 * Returns     the number of members of the weekly board.
 */
export const LEADERBOARD_UNION = defineScript<number>(
  'leaderboard_union',
  8,
  `
local sources = {}
for i = 2, #KEYS do sources[#sources + 1] = KEYS[i] end
local size = redis.call('ZUNIONSTORE', KEYS[1], #sources, unpack(sources))
if size > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return size
`,
);
