import { defineScript } from '../../core/scripts/redis-script';

/**
 * The members ranked around one member, read in one step so the rank and the window agree.
 *
 * KEYS[1]  the board
 * ARGV[1]  the member
 * ARGV[2]  n, how many neighbours on each side
 * Returns  {} when the member is absent, else { start (0-based rank of the first entry), member, score, … }.
 */
export const LEADERBOARD_AROUND = defineScript<Array<string | number>>(
  'leaderboard_around',
  `
local rank = redis.call('ZREVRANK', KEYS[1], ARGV[1])
if not rank then return {} end
local n = tonumber(ARGV[2])
local start = rank - n
if start < 0 then start = 0 end
local entries = redis.call('ZREVRANGE', KEYS[1], start, rank + n, 'WITHSCORES')
table.insert(entries, 1, start)
return entries
`,
  { keys: 1 },
);
