import { defineScript } from '../../core/scripts/redis-script';

/**
 * Removes members from a daily board and marks its week's union stale, in one step.
 *
 * KEYS[1]    the daily board
 * KEYS[2]    the freshness marker of the week's union
 * ARGV[…]    the members
 * Returns    how many were on the board.
 */
export const LEADERBOARD_DAY_REMOVE = defineScript<number>(
  'leaderboard_day_remove',
  `
local removed = redis.call('ZREM', KEYS[1], unpack(ARGV))
if removed > 0 then redis.call('DEL', KEYS[2]) end
return removed
`,
  { keys: 2 },
);
