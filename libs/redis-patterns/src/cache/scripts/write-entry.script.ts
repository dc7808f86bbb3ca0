import { defineScript } from '../../core/scripts/redis-script';

/**
 * Writes an entry with its TTL unless a tag invalidation has overtaken this write, and releases the writer's fill
 * lock. A tagged write first registers the key in each tag's index and learns the tag's epoch; an invalidation that
 * happened after that registration leaves a tombstone (tag → newer epoch) next to the key, so the write is refused
 * here and a pre-invalidation value never becomes readable after invalidateTags resolved.
 *
 * KEYS[1] value key, KEYS[2] tombstone hash, KEYS[3] fill-lock key (one hash tag).
 * ARGV[1] entry, ARGV[2] TTL (ms), ARGV[3] lock token or '', then pairs of (tag, epoch seen at registration).
 * Returns 1 when written, 0 when refused by a tombstone, or because del's marker or another caller holds the lock.
 */
export const WRITE_ENTRY_SCRIPT = defineScript<number>(
  'cache_write_entry',
  `
-- A fill writes under its lock. When del has replaced the lock by its marker (or another caller holds it), the
-- loaded value may predate that delete, so it is not written. A lock that merely expired (a loader slower than
-- the lock TTL) does not stop the write: slow loaders must still be cacheable.
if ARGV[3] ~= '' then
  local holder = redis.call('GET', KEYS[3])
  if holder and holder ~= ARGV[3] then return 0 end
end
local function release()
  if ARGV[3] ~= '' and redis.call('GET', KEYS[3]) == ARGV[3] then redis.call('DEL', KEYS[3]) end
end
if #ARGV > 3 and redis.call('EXISTS', KEYS[2]) == 1 then
  for i = 4, #ARGV, 2 do
    local dead = redis.call('HGET', KEYS[2], ARGV[i])
    if dead and tonumber(dead) > tonumber(ARGV[i + 1]) then
      release()
      return 0
    end
  end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
release()
return 1
`,
  { keys: 3 },
);
