import { defineScript } from '../../core/scripts/redis-script';

/**
 * Makes sure the weekly board is the sum of its daily boards, rebuilding it only when it is not fresh: the
 * freshness marker is set here with the union and deleted by every write or removal on a daily board of the week,
 * so a read after a write sees it and the reads in between reuse one union. The check and the rebuild are one step:
 * two readers never both rebuild, and a write cannot slip between the check and the union. All keys share the
 * board's hash tag, so this is cluster-safe.
 *
 * KEYS[1]     the weekly board (destination)
 * KEYS[2]     its freshness marker (holds the union's size; the union key is absent when it is 0)
 * KEYS[3 …]   the seven daily boards
 * ARGV[1]     TTL of the weekly board and of its marker, in ms (the staleness bound when no write marks it)
 * Returns     1 when the union was rebuilt, 0 when the fresh one was reused.
 */
export const LEADERBOARD_WEEK = defineScript<number>(
  'leaderboard_week',
  `
local mark = redis.call('GET', KEYS[2])
if mark and (mark == '0' or redis.call('EXISTS', KEYS[1]) == 1) then return 0 end
local sources = {}
for i = 3, #KEYS do sources[#sources + 1] = KEYS[i] end
local size = redis.call('ZUNIONSTORE', KEYS[1], #sources, unpack(sources))
if size > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
redis.call('SET', KEYS[2], size, 'PX', ARGV[1])
return 1
`,
  { keys: 9 },
);
