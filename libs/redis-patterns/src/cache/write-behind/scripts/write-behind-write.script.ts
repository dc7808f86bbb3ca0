import { defineScript } from '../../../core/scripts/redis-script';
import { STREAM_ID_NEWER } from './stream-id.lua';

/**
 * A write-behind write: the cache entry and the change record in one atomic step (one slot: they share the entry's
 * hash tag). The change was announced first (XADD to the queue's partition, whose id is the write's version), so a
 * process that dies between the two steps leaves an announcement without a change, never a change without one.
 *
 * KEYS[1]  the cache entry
 * KEYS[2]  the change record: a hash `v` (version: the announcement's stream id), `p` (the entry payload), `s`
 *          (`pending`, `flushed` or `dead`), `a` (failed attempts). No TTL while pending (documented exception);
 *          once settled it keeps its version for `keepMs`, so a late older write cannot overtake a flushed one
 * ARGV[1]  entry payload, ARGV[2] entry TTL (ms), ARGV[3] version, ARGV[4] how old the announcement may be (ms)
 * Returns  1 written; 0 a newer write of the key is already recorded (this one is overtaken, as if written just
 *          before it); -1 the announcement is too old (the flusher may have given up on it): nothing written
 */
export const WRITE_BEHIND_WRITE_SCRIPT = defineScript<number>(
  'write_behind_write',
  `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if now - tonumber(string.match(ARGV[3], '^(%d+)-')) > tonumber(ARGV[4]) then return -1 end
local current = redis.call('HGET', KEYS[2], 'v')
if current and not newer(ARGV[3], current) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('HSET', KEYS[2], 'v', ARGV[3], 'p', ARGV[1], 's', 'pending', 'a', 0)
-- A settled record of the key keeps a TTL; pending, it has none.
if current then redis.call('PERSIST', KEYS[2]) end
return 1
`,
  { keys: 2, args: 4, prelude: STREAM_ID_NEWER },
);
