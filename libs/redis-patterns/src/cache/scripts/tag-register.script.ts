import { defineScript } from '../../core/scripts/redis-script';

/** The most dead members one registration prunes: a step is bounded however many members died meanwhile. */
export const TAG_PRUNE_MAX = 1000;

/**
 * Adds a key to a tag's member index (a sorted set: entry key → its expiry in this server's ms) and stretches the
 * index's TTL (and the epoch's) to cover the member, in one step; first it prunes members whose expiry has passed
 * (at most TAG_PRUNE_MAX, the earliest first), so the index holds the live members of the tag and not every key it
 * ever had. With an expected epoch (a fill that read it before loading), nothing is registered when an invalidation
 * has bumped the epoch meanwhile: the loaded value may predate the invalidation.
 *
 * KEYS[1] tag member index, KEYS[2] tag epoch (one hash tag).
 * ARGV[1] member (the value key), ARGV[2] member TTL (ms: the entry's TTL plus the engine's margin), ARGV[3]
 * expected epoch or ''.
 * Returns the tag's current epoch (0 when never invalidated), or -1 when it differs from the expected one.
 *
 * The clock is read inline (TIME, whole ms) rather than through the shared server-clock prelude: defining its
 * functions on every lone call cost this script, run once per tag of every tagged write, about 1 µs of server time
 * of 8.
 */
export const TAG_REGISTER_SCRIPT = defineScript<number>(
  'cache_tag_register',
  `
local e = tonumber(redis.call('GET', KEYS[2]) or '0')
if ARGV[3] ~= '' and e ~= tonumber(ARGV[3]) then return -1 end
local px = tonumber(ARGV[2])
-- A member's score is when this node would expire a key given PEXPIRE px now. The entry (perhaps on another node)
-- gets its own TTL, px less the margin, from its write, which follows this registration: while the write lands
-- within the margin (1 s) of it, the member outlives its entry, so pruning by this node's clock never drops a key
-- whose entry can still be read. It is the instant the index's own TTL has always been (Redis keeps and replicates
-- expiries as absolute times of the master's clock too), per member instead of for the whole index. Whole ms,
-- rounded down: a member is pruned up to 1 ms late, never early.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local dead = redis.call('ZCOUNT', KEYS[1], '-inf', now)
if dead > 0 then redis.call('ZREMRANGEBYRANK', KEYS[1], 0, math.min(dead, ${TAG_PRUNE_MAX}) - 1) end
-- GT: a key registered again keeps the later of its two expiries (a new member is always added).
redis.call('ZADD', KEYS[1], 'GT', now + px, ARGV[1])
if redis.call('PTTL', KEYS[1]) < px then redis.call('PEXPIRE', KEYS[1], px) end
if e > 0 and redis.call('PTTL', KEYS[2]) < px then redis.call('PEXPIRE', KEYS[2], px) end
return e
`,
  { keys: 2 },
);
