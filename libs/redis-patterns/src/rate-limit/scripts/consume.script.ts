import { defineScript } from '../../core/scripts/redis-script';
import { FIXED_WINDOW_LUA } from './fixed-window.lua';
import { REDIS_CLOCK_LUA } from './redis-clock.lua';
import { SLIDING_WINDOW_COUNTER_LUA } from './sliding-window-counter.lua';
import { FUTURE_HITS_LUA } from './future-hits.lua';
import { SLIDING_LOG_LUA } from './sliding-log.lua';
import { TOKEN_BUCKET_LUA } from './token-bucket.lua';

// The five algorithms as functions returning a check, a deferred commit and, where the check counted, an undo (see
// each *.lua.ts).
const ALGORITHMS_LUA = `${REDIS_CLOCK_LUA}${FIXED_WINDOW_LUA}${FUTURE_HITS_LUA}${SLIDING_LOG_LUA}${SLIDING_WINDOW_COUNTER_LUA}${TOKEN_BUCKET_LUA}
-- GCRA (code 5) is decided in its token-bucket form: its parameters arrive as burst and refill per second.
local checks = { fixed_window, sliding_log, sliding_window_counter, token_bucket, token_bucket }
-- A reset an algorithm left to be read only if a reply reports it (sliding_log, allowed and consuming).
local function reset_of(reset_now)
  if type(reset_now) == 'function' then return reset_now() end
  return reset_now
end
`;

/**
 * Decides a call against every policy of a limiter at once: one script, one round trip, all-or-nothing.
 *
 * KEYS[i]  the state key of policy i; all share the identity's hash tag, so one slot (cluster-safe)
 * KEYS[n+k]  the block key of the k-th policy with a block duration (its TTL is what is left of the block)
 * ARGV[1]  cost (units; fractional only for token-bucket / GCRA, checked by the caller)
 * ARGV[2]  nonce, unique per call when a policy keeps a sliding log (its members), else empty
 * ARGV[4i-1..4i+2]  per policy: algorithm code (1 fixed, 2 sliding log, 3 sliding counter, 4 token bucket, 5 GCRA),
 *          its two parameters (limit|capacity|burst, windowMs|refillPerSecond|refillPerSecond), block duration ms
 *          (0: none)
 * Returns  { allowed (1|0), then per policy: remaining, resetMs, retryAfterMs } as integers
 *
 * Runs alone or as one call of a batch (see RedisScript): the algorithm functions are defined once per batch.
 *
 * Time is Redis TIME, read once per batch (not at all when every policy is a fixed window): every instance, whatever
 * its clock, sees the same windows (invariant 3). Phase one checks every policy (a fixed window counts as it
 * checks); phase two commits all of them only if all allowed, and otherwise undoes what phase one counted, in the
 * same atomic script, so a denied call costs nothing anywhere (no partial consumption as with sequential limiters).
 *
 * Blocks: a policy with a block duration denies while its block key lives (a PTTL, on the allowed path too: one
 * command, no round trip), and a denial by the policy itself sets the key for the duration, in the same script, so
 * no call between the denial and the block can be admitted. A peek (cost 0) reports a block and never starts one.
 */
const CONSUME_LUA = `
local cost = tonumber(ARGV[1])
local count = (#ARGV - 2) / 4
local nonce = ARGV[2]
-- Fixed windows need no clock (their window is the key's TTL): read TIME only if another algorithm is involved.
local now = 0
for i = 1, count do
  if ARGV[4 * i - 1] ~= '1' then
    now = now_ms()
    break
  end
end
-- One flat table for every policy's outcome (six slots each): no table per policy.
local raw = {}
local allowed = true
local block_key = count
for i = 1, count do
  local j = 4 * i - 1
  local ok, available, reset_now, reset_after, retry, commit, undo =
    checks[tonumber(ARGV[j])](KEYS[i], tonumber(ARGV[j + 1]), tonumber(ARGV[j + 2]), cost, now, nonce .. ':' .. i)
  local block = tonumber(ARGV[j + 3])
  if block > 0 then
    block_key = block_key + 1
    local left = redis.call('PTTL', KEYS[block_key])
    if left == -1 then
      -- A block key never lives without its TTL (persisted by hand): it ends a block from now.
      redis.call('PEXPIRE', KEYS[block_key], block)
      left = block
    end
    if left > 0 then
      ok, available = false, 0
    elseif not ok and cost > 0 then
      redis.call('SET', KEYS[block_key], '1', 'PX', block)
      left = block
    end
    if left > 0 then
      retry = math.max(retry, left)
      reset_now = math.max(reset_of(reset_now), left)
    end
  end
  if not ok then allowed = false end
  local r = 6 * i - 6
  raw[r + 1], raw[r + 2], raw[r + 3], raw[r + 4], raw[r + 5], raw[r + 6] = available, reset_now, reset_after, retry, commit, undo
end
local out = { allowed and 1 or 0 }
for i = 1, count do
  local r = 6 * i - 6
  if allowed then
    -- All or nothing: every policy commits, or (denied) the ones that counted first (fixed windows) undo.
    if cost > 0 and raw[r + 5] then raw[r + 5]() end
    out[3 * i - 1] = math.max(math.floor(raw[r + 1] - cost), 0)
    out[3 * i] = math.ceil(cost > 0 and raw[r + 3] or raw[r + 2])
    out[3 * i + 1] = 0
  else
    if cost > 0 and raw[r + 6] then raw[r + 6]() end
    out[3 * i - 1] = math.max(math.floor(raw[r + 1]), 0)
    out[3 * i] = math.ceil(reset_of(raw[r + 2]))
    out[3 * i + 1] = math.ceil(raw[r + 4])
  end
end
return out
`;

/** The generic consume script, for 1 to 16 policies (a single policy normally uses its algorithm's own script). */
export const CONSUME_SCRIPT = defineScript<number[]>('rate_limit', CONSUME_LUA, { prelude: ALGORITHMS_LUA });
