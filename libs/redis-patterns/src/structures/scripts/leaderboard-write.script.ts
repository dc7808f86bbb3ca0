import { defineScript } from '../../core/scripts/redis-script';

/**
 * Increments (ZINCRBY, never read-modify-write) or sets a member's score, range-checked first, then renews the
 * board's TTL and trims it to its best `maxLength` members — one atomic step. A write that would leave the exact
 * integer range of a double (|score| > 2^53 - 1) is refused and writes nothing. On a daily board, the write also
 * deletes the freshness marker of its week's union (see leaderboard-week.script.ts), so the next weekly read rebuilds it.
 *
 * KEYS[1]  the board (sorted set)
 * KEYS[2]  (LEADERBOARD_DAY_WRITE only) the freshness marker of the week's union
 * ARGV[1]  'incr' or 'set'
 * ARGV[2]  the increment or the score
 * ARGV[3]  TTL in ms
 * ARGV[4]  maxLength, 0 for unbounded
 * ARGV[5]  the member
 * Returns  the new score as a string, or the error `SCORE_RANGE <would-be score>`.
 */
const WRITE_LUA = `
local limit = 9007199254740991
local value = tonumber(ARGV[2])
local score = value
if ARGV[1] == 'incr' then
  local current = redis.call('ZSCORE', KEYS[1], ARGV[5])
  if current then score = tonumber(current) + value end
end
if score > limit or score < -limit then
  return redis.error_reply('SCORE_RANGE ' .. string.format('%.17g', score))
end
local reply = ARGV[2]
if ARGV[1] == 'incr' then
  reply = redis.call('ZINCRBY', KEYS[1], ARGV[2], ARGV[5])
else
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[5])
end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
local maxLength = tonumber(ARGV[4])
if maxLength > 0 then redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -maxLength - 1) end
if KEYS[2] then redis.call('DEL', KEYS[2]) end
return reply
`;

/** A write to an all-time board. */
export const LEADERBOARD_WRITE = defineScript<string>('leaderboard_write', WRITE_LUA, { keys: 1 });

/** A write to a daily board, which marks its week's union stale. */
export const LEADERBOARD_DAY_WRITE = defineScript<string>('leaderboard_day_write', WRITE_LUA, { keys: 2 });
